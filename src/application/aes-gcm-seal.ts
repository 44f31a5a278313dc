import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** GCM's standard nonce and full-length tag. */
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** base64url(nonce ‖ ciphertext ‖ tag) of `text` under the 32-byte `key`, `aad` authenticated alongside. */
export function sealText(key: Buffer, text: string, aad?: string): string {
  const nonce = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
}

/** The text `sealText` sealed with the same key and `aad`; null for anything else (too short, altered, other key or aad). */
export function openText(key: Buffer, sealed: string, aad?: string): string | null {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
  // Decoding drops a character that completes no byte (and skips ones outside the alphabet), so texts
  // other than the one sealed would open to it: only the encoding sealText writes is read.
  if (bytes.toString('base64url') !== sealed) return null;
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    // The tag did not verify.
    return null;
  }
}
