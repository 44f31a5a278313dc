import type { FilterNode } from '../query/filter.ts';
import { ORDER_OPERATORS } from '../query/operator-support.ts';

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
      return ORDER_OPERATORS.has(node.operator) ? { ...node, textOrder: 'codePoint' } : node;
  }
}
