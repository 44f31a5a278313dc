import type { FilterNode, RelationCondition } from '../query/filter.ts';

/**
 * Every field of the filtered collection its conditions name, depth first, repeats included. A condition
 * across a many-to-one relation names its foreign key; the related collection's fields are that
 * collection's to judge.
 */
export function* fieldsNamedBy(filter: FilterNode): Generator<string> {
  if (filter.kind === 'condition') {
    yield filter.field;
    return;
  }
  if (filter.kind === 'relation') {
    if (filter.hop.direction === 'many-to-one') yield filter.hop.key;
    return;
  }
  for (const node of filter.nodes) yield* fieldsNamedBy(node);
}

/** Whether a filter's conditions name any of `fields`. */
export function namesAnyOf(filter: FilterNode, fields: ReadonlySet<string>): boolean {
  for (const field of fieldsNamedBy(filter)) if (fields.has(field)) return true;
  return false;
}

/**
 * The conditions on related rows a filter holds at its own level, depth first: not those inside them,
 * which are the related collection's to judge.
 */
export function* relationsNamedBy(filter: FilterNode): Generator<RelationCondition> {
  if (filter.kind === 'condition') return;
  if (filter.kind === 'relation') {
    yield filter;
    return;
  }
  for (const node of filter.nodes) yield* relationsNamedBy(node);
}
