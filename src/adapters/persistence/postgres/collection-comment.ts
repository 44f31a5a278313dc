import type { AccountabilityMode } from '../../../domain/schema/collection-schema.ts';

/**
 * A collection's setting that is not part of its table's shape — what its writes record
 * (`meta.accountability`, docs/api.md §7) — is kept in the table's own comment
 * (`COMMENT ON TABLE … IS '{"accountability":"activity"}'`), so that it lives and dies with the table and
 * there is still no bookkeeping table (docs/decisions/0026, 0033). The default (`all`) is no comment at
 * all. Comments of any other form are someone else's and mean the default.
 */
export function collectionComment(accountability: AccountabilityMode): string | null {
  return accountability === 'all' ? null : JSON.stringify({ accountability });
}

/** The setting a table's comment holds, if the comment is one of ours; undefined means the default. */
export function accountabilityOfComment(comment: string | null): AccountabilityMode | undefined {
  if (comment === null || !comment.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(comment);
    if (typeof parsed !== 'object' || parsed === null || !Object.hasOwn(parsed, 'accountability')) {
      return undefined;
    }
    const mode = (parsed as Record<string, unknown>).accountability;
    return mode === null || mode === 'activity' || mode === 'all' ? mode : undefined;
  } catch {
    return undefined;
  }
}
