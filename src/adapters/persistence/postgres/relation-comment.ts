/**
 * The one-to-many name an admin chose for a relation is kept in the constraint's own comment
 * (`COMMENT ON CONSTRAINT … IS '{"one_field":"parcels"}'`), so that it lives and dies with the foreign key
 * and there is still no bookkeeping table (docs/decisions/0026). Comments of any other form are someone
 * else's and mean nothing here.
 */
export function relationComment(oneField: string): string {
  return JSON.stringify({ one_field: oneField });
}

/** The name a constraint's comment chose, if it is one of ours. */
export function chosenOneFieldOf(comment: string | null): string | undefined {
  if (comment === null || !comment.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(comment);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const name = (parsed as Record<string, unknown>).one_field;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}
