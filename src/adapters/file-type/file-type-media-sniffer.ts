import type { MediaSniffer } from '../../application/ports/media-sniffer.ts';

/** The leading bytes file-type reads to recognise every format it knows (its own sample size). */
const WINDOW_BYTES = 4100;

type FileType = typeof import('file-type');

/**
 * A file's media type from its signature, by file-type (docs/api.md §15). file-type is imported by the
 * first upload, not at start: loading it costs ~60 ms of CPU that a server answering no upload never needs
 * (docs/decisions/0045).
 */
export class FileTypeMediaSniffer implements MediaSniffer {
  readonly windowBytes = WINDOW_BYTES;
  private loaded: Promise<FileType> | undefined;

  async sniff(head: Uint8Array): Promise<string | undefined> {
    return (await (await this.fileType()).fileTypeFromBuffer(head))?.mime;
  }

  async recognises(type: string): Promise<boolean> {
    return (await this.fileType()).supportedMimeTypes.has(type);
  }

  private fileType(): Promise<FileType> {
    this.loaded ??= import('file-type');
    return this.loaded;
  }
}
