import { type FilterNode, MATCH_ALL, MATCH_NONE, type OperandValue } from '../query/filter.ts';

/**
 * The OR of row filters, where `null` means "every row". Simplified only structurally, to keep the SQL
 * the permission rule becomes small: nested ORs are flattened, duplicates dropped, MATCH_NONE members
 * dropped, and a member matching every row makes the whole union `null`. No logic beyond that: two
 * filters that mean the same but are written differently both stay.
 */
export function unionOfFilters<V extends OperandValue>(
  filters: ReadonlyArray<FilterNode<V> | null>,
): FilterNode<V> | null {
  const members = new Map<string, FilterNode<V>>();
  const add = (node: FilterNode<V>) => {
    if (node.kind === 'or') {
      for (const member of node.nodes) add(member);
      return;
    }
    members.set(filterKey(node), node);
  };
  for (const filter of filters) {
    if (filter === null || matchesEveryRow(filter)) return null;
    add(filter);
  }
  if (members.has(filterKey(MATCH_ALL))) return null;
  if (members.size === 0) return MATCH_NONE;
  if (members.size === 1) return [...members.values()][0]!;
  return { kind: 'or', nodes: [...members.values()] };
}

export function matchesEveryRow<V extends OperandValue>(filter: FilterNode<V>): boolean {
  return filter.kind === 'and' && filter.nodes.length === 0;
}

export function matchesNoRow<V extends OperandValue>(filter: FilterNode<V>): boolean {
  return filter.kind === 'or' && filter.nodes.length === 0;
}

/** Structural identity: the same tree gives the same key, whatever order its objects' keys were set in. */
export function filterKey<V extends OperandValue>(filter: FilterNode<V> | null): string {
  return JSON.stringify(filter, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
