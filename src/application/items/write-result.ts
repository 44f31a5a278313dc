/** The body of a write's answer as JSON text, or null for 204 No Content (nothing the caller may read). */
export type WriteResult = { json: string } | null;

/**
 * One item for a single write, an array for a batch (docs/api.md §5), from the items' JSON texts as the store
 * built them: joined, never parsed.
 */
export function writeResult(many: boolean, items: ReadonlyArray<string> | null): WriteResult {
  if (many) return items === null ? null : { json: `[${items.join(',')}]` };
  return items?.[0] === undefined ? null : { json: items[0] };
}
