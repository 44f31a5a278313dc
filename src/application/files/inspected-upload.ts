import { createHash } from 'node:crypto';
import { contentTooLarge, typeNotAllowed } from '../../domain/files/upload-refusals.ts';
import type { MediaSniffer } from '../ports/media-sniffer.ts';
import { isAllowedType, type UploadSettings } from './upload-settings.ts';

/** What was learnt of an upload's bytes once they have all passed. */
export type InspectedBytes = {
  readonly size: number;
  /** SHA-256, lower-case hex. */
  readonly checksum: string;
  readonly type: string;
};

const UNKNOWN_TYPE = 'application/octet-stream';

/** A bare media type (no parameters), as a `Content-Type` may carry it when the file is served. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/**
 * An upload's bytes as they pass on to the store, counted, hashed and typed on the way, in constant
 * memory: only the sniffer's window is held, and only until the type is known. Iterating throws
 * CONTENT_TOO_LARGE at the first byte over the limit, and UNSUPPORTED_MEDIA_TYPE before anything is
 * passed on when the type is refused, so the store keeps nothing of either (FileStorage.write).
 * The sniffed type wins over the declared one; the declared one is kept for bytes with no signature, unless
 * it names a type the sniffer would have recognised (text declared as `image/png` is not an image).
 */
export class InspectedUpload {
  private inspected: InspectedBytes | undefined;

  constructor(
    private readonly source: AsyncIterable<Uint8Array>,
    private readonly declaredType: string,
    private readonly sniffer: MediaSniffer,
    private readonly settings: UploadSettings,
  ) {}

  /** Known once `bytes` has been read to its end. */
  result(): InspectedBytes {
    if (!this.inspected) throw new Error('The upload has not been read to its end');
    return this.inspected;
  }

  async *bytes(): AsyncGenerator<Uint8Array> {
    const hash = createHash('sha256');
    const window: Uint8Array[] = [];
    let size = 0;
    let type: string | undefined;
    for await (const chunk of this.source) {
      size += chunk.byteLength;
      if (size > this.settings.maxUploadSize) throw contentTooLarge(this.settings.maxUploadSize);
      hash.update(chunk);
      if (type !== undefined) {
        yield chunk;
        continue;
      }
      window.push(chunk);
      if (size < this.sniffer.windowBytes) continue;
      type = await this.typeOf(window);
      yield* window.splice(0);
    }
    type ??= await this.typeOf(window);
    yield* window.splice(0);
    this.inspected = { size, checksum: hash.digest('hex'), type };
  }

  private async typeOf(window: ReadonlyArray<Uint8Array>): Promise<string> {
    const sniffed = await this.sniffer.sniff(Buffer.concat(window));
    const declared = this.declaredType.trim().toLowerCase();
    const believable = MEDIA_TYPE.test(declared) && !(await this.sniffer.recognises(declared));
    const type = sniffed ?? (believable ? declared : UNKNOWN_TYPE);
    if (!isAllowedType(type, this.settings.allowedTypes)) throw typeNotAllowed(type);
    return type;
  }
}
