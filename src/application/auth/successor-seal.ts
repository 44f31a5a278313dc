import { hkdfSync } from 'node:crypto';
import { openText, sealText } from '../aes-gcm-seal.ts';
import type { TokenPair } from './token-pair.ts';

/** HKDF `info`: separates this key from every other use of the server secret. */
const KEY_LABEL = 'datagate refresh successor aes-256-gcm v1';
const KEY_BYTES = 32;

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
    return sealText(this.key(spentToken), JSON.stringify(pair));
  }

  /** The pair sealed for `spentToken`; null when it was sealed for another token or another secret. */
  open(sealed: string, spentToken: string): TokenPair | null {
    const text = openText(this.key(spentToken), sealed);
    return text === null ? null : (JSON.parse(text) as TokenPair);
  }

  private key(spentToken: string): Buffer {
    return Buffer.from(hkdfSync('sha256', spentToken, this.salt, KEY_LABEL, KEY_BYTES));
  }
}
