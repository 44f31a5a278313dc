import type { FilterNode } from './filter.ts';

/** Whether a filter holds a condition on related rows (docs/api.md §4, filters across relations). */
export function crossesRelation(node: FilterNode): boolean {
  if (node.kind === 'relation') return true;
  return node.kind !== 'condition' && node.nodes.some(crossesRelation);
}
