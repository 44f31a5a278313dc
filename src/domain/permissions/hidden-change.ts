import { matchesFilter } from '../query/evaluate-filter.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';
import type { ReadRule } from './read-rule.ts';

type Row = Readonly<Record<string, unknown>>;

/**
 * Whether a change to a row the reader sees before and after it touched only what `rule` hides from them
 * (docs/decisions/0061-a-change-to-hidden-fields-only-is-not-told.md): some field differs, yet every field the
 * rule shows reads the same before and after, a field shown under a condition reading as null where the
 * row does not meet it. Telling such a reader of the change at all would tell them a hidden field changed.
 * A change that changes nothing is not one: it tells nothing hidden. An admin's rule shows every field, so
 * for an admin this is never true.
 */
export function changedOnlyHiddenFields(
  rule: ReadRule,
  before: Row,
  after: Row,
  collection: CollectionSchema,
): boolean {
  let changed = false;
  for (const { name } of collection.fields) {
    const old = before[name] ?? null;
    const now = after[name] ?? null;
    if (old !== now) changed = true;
    if (!rule.fields.has(name)) continue;
    const condition = rule.fields.get(name) ?? null;
    // A condition can hold on one side only even where the field's own value is unchanged.
    const shownBefore = condition === null || matchesFilter(condition, before, collection);
    const shownAfter = condition === null || matchesFilter(condition, after, collection);
    if ((shownBefore ? old : null) !== (shownAfter ? now : null)) return false;
  }
  return changed;
}
