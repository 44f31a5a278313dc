/** The files collection (docs/api.md §15): a foreign key pointing at it holds a file's id. */
export const FILES_COLLECTION = 'datagate_files';

/** The fields of a file the studio shows, when the caller may read them. */
export type FileRow = { id: string; filename_download?: string; title?: string | null; type?: string | null };

/** The types the server makes thumbnails of (docs/api.md §15 "Image transforms"); SVG never. */
const PICTURES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/tiff', 'image/gif']);

export function isPicture(file: FileRow): boolean {
  return PICTURES.has(file.type ?? '');
}

export function fileName(file: FileRow): string {
  return file.title || file.filename_download || file.id;
}
