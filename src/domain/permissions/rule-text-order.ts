import type { ComparisonOperator, FilterNode } from '../query/filter.ts';

/** The operators whose answer on text depends on how text is ordered. */
const ORDERING: ReadonlySet<ComparisonOperator> = new Set([
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_between',
  '_nbetween',
]);

/**
 * A permission rule's filter with its text comparisons in code point order (filter.ts, `TextOrder`): the
 * order matchesFilter judges a rule in, on writes and realtime events, so that the database, which reads
 * the same rule for lists, counts and history, finds the same rows whatever its collation.
 */
export function inCodePointOrder(node: FilterNode): FilterNode {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, nodes: node.nodes.map(inCodePointOrder) };
    case 'relation':
      return { ...node, node: inCodePointOrder(node.node) };
    default:
      return ORDERING.has(node.operator) ? { ...node, textOrder: 'codePoint' } : node;
  }
}
