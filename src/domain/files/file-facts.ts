/**
 * What an upload learns of a file's bytes (docs/api.md §15), written by the server only: where they are
 * stored, their size, their SHA-256 (the ETag), their media type as sniffed, an image's dimensions.
 */
export type FileFacts = {
  readonly filename_disk: string;
  readonly filesize: number;
  readonly checksum: string;
  readonly type: string;
  readonly width: number | null;
  readonly height: number | null;
};

export const FILE_FACT_FIELDS: ReadonlySet<string> = new Set<keyof FileFacts>([
  'filename_disk',
  'filesize',
  'checksum',
  'type',
  'width',
  'height',
]);
