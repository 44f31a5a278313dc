import type { ExportFormat } from '../../application/items/export-items.ts';

/** The media type of each export format, as the Content-Type of its download. */
export const EXPORT_MEDIA_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/**
 * `<collection>-<UTC timestamp>.<format>`, e.g. `cargos-20261126T091500Z.csv`: letters, digits, `_`, `-`
 * and `.` only, so it needs no quoting rules of its own in a Content-Disposition header or a shell.
 */
export function exportFileName(collection: string, format: ExportFormat, at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const safe = collection.replace(/[^A-Za-z0-9_-]/g, '_');
  return `${safe}-${stamp}.${format}`;
}
