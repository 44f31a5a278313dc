import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';
import type { MediaSniffer } from '../../application/ports/media-sniffer.ts';

/** The leading bytes file-type reads to recognise every format it knows (its own sample size). */
const WINDOW_BYTES = 4100;

/** A file's media type from its signature, by file-type (docs/api.md §15). */
export class FileTypeMediaSniffer implements MediaSniffer {
  readonly windowBytes = WINDOW_BYTES;

  async sniff(head: Uint8Array): Promise<string | undefined> {
    return (await fileTypeFromBuffer(head))?.mime;
  }

  recognises(type: string): boolean {
    return supportedMimeTypes.has(type);
  }
}
