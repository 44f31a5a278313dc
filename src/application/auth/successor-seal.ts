import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { TokenPair } from './token-pair.ts';

/** HKDF `info`: separates this key from every other use of the server secret. */
const KEY_LABEL = 'datagate refresh successor aes-256-gcm v1';
const KEY_BYTES = 32;
/** GCM's standard nonce and full-length tag. */
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Keeps the token pair a refresh token was spent for, so that a replay within the grace period answers
 * that very pair, without keeping a usable token at rest. The pair is encrypted with AES-256-GCM under
 * HKDF-SHA256(key material: the spent token, salt: the server secret). The database holds only the spent
 * token's SHA-256 digest, from which that key cannot be derived: only a holder of the spent token (who
 * may replay it anyway) together with the server can open its successor. Each key seals one pair, since
 * a token is spent once.
 */
export class SuccessorSeal {
  private readonly salt: Buffer;

  constructor(serverSecret: string) {
    this.salt = Buffer.from(serverSecret, 'utf8');
  }

  /** base64url(nonce ‖ ciphertext ‖ tag). */
  seal(pair: TokenPair, spentToken: string): string {
    const nonce = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key(spentToken), nonce, { authTagLength: TAG_BYTES });
    const body = Buffer.concat([cipher.update(JSON.stringify(pair), 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The pair sealed for `spentToken`; null when it was sealed for another token or another secret. */
  open(sealed: string, spentToken: string): TokenPair | null {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
    const decipher = createDecipheriv('aes-256-gcm', this.key(spentToken), bytes.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    let text: string;
    try {
      text = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      // The tag did not verify: the wrong token, a changed secret, or altered bytes.
      return null;
    }
    return JSON.parse(text) as TokenPair;
  }

  private key(spentToken: string): Buffer {
    return Buffer.from(hkdfSync('sha256', spentToken, this.salt, KEY_LABEL, KEY_BYTES));
  }
}
