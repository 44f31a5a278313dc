/**
 * One file of a multipart upload (docs/api.md §15), as the HTTP adapter hands it over: the form fields
 * sent before it, what its part header says, and its bytes, not read yet — the handler reads them only
 * once the metadata has passed every check.
 */
export type FileUpload = {
  /** The form's fields between the previous file (or the start) and this one, as text. */
  readonly fields: Readonly<Record<string, string>>;
  /** The part's file name, as the client sent it; empty when it sent none. */
  readonly filename: string;
  /** The part's declared media type. */
  readonly declaredType: string;
  readonly bytes: AsyncIterable<Uint8Array>;
};

/** What an upload says of its file before its bytes: enough to check its row. */
export type FileUploadHead = Pick<FileUpload, 'fields' | 'filename'>;
