import type { FilterNode } from '../query/filter.ts';

/** Every field a filter's conditions name, depth first, repeats included. */
export function* fieldsNamedBy(filter: FilterNode): Generator<string> {
  if (filter.kind === 'condition') {
    yield filter.field;
    return;
  }
  for (const node of filter.nodes) yield* fieldsNamedBy(node);
}

/** Whether a filter's conditions name any of `fields`. */
export function namesAnyOf(filter: FilterNode, fields: ReadonlySet<string>): boolean {
  for (const field of fieldsNamedBy(filter)) if (fields.has(field)) return true;
  return false;
}
