import type { FilterNode, OperandValue } from './filter.ts';

/**
 * AND of filters, simplified without changing its meaning: nested ANDs flattened, MATCH_ALL dropped,
 * MATCH_NONE absorbing, a single node unwrapped. Keeps trees small and SQL free of `TRUE AND …`.
 */
export function allOf<V extends OperandValue>(nodes: ReadonlyArray<FilterNode<V>>): FilterNode<V> {
  return combine('and', nodes);
}

/** OR of filters, simplified the same way (MATCH_NONE dropped, MATCH_ALL absorbing). */
export function anyOf<V extends OperandValue>(nodes: ReadonlyArray<FilterNode<V>>): FilterNode<V> {
  return combine('or', nodes);
}

function combine<V extends OperandValue>(
  kind: 'and' | 'or',
  nodes: ReadonlyArray<FilterNode<V>>,
): FilterNode<V> {
  const absorbing = kind === 'and' ? 'or' : 'and';
  const flat: FilterNode<V>[] = [];
  for (const node of nodes) {
    if (node.kind === kind) flat.push(...node.nodes);
    else if (node.kind === absorbing && node.nodes.length === 0) return { kind: absorbing, nodes: [] };
    else flat.push(node);
  }
  return flat.length === 1 ? flat[0]! : { kind, nodes: flat };
}
