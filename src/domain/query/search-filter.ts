import type { FieldSchema } from '../schema/collection-schema.ts';
import { TEXTUAL_TYPES } from '../schema/field-type.ts';
import { anyOf } from './combine-filters.ts';
import { type BoundFilterNode, MATCH_NONE } from './filter.ts';

/**
 * `?search=term` (docs/api.md §4): a case-insensitive, literal substring match on any of the given fields.
 * The caller passes the text/varchar fields the user may read; other types are skipped defensively.
 * With no such field nothing can match, so the search matches no row (rather than every row).
 */
export function searchFilter(term: string, fields: ReadonlyArray<FieldSchema>): BoundFilterNode {
  const textual = fields.filter((field) => TEXTUAL_TYPES.has(field.type));
  if (textual.length === 0) return MATCH_NONE;
  return anyOf(
    textual.map(
      (field) => ({ kind: 'condition', field: field.name, operator: '_icontains', value: term }) as const,
    ),
  );
}
