/** The body of a write's answer as JSON text, or null for 204 No Content (nothing the caller may read). */
export type WriteResult = { json: string } | null;

/** One item for a single write, an array for a batch (API.md §5). */
export function writeResult(
  many: boolean,
  items: ReadonlyArray<Record<string, unknown>> | null,
): WriteResult {
  if (many) return items === null ? null : { json: JSON.stringify(items) };
  return items?.[0] === undefined ? null : { json: JSON.stringify(items[0]) };
}
