import { invalidQuery } from './invalid-query.ts';
import { DEFAULT_FILTER_LIMITS, type FilterLimits } from './parse-filter.ts';

/**
 * The limits parseFilter holds a filter to (nesting, conditions), checked without a collection: for a
 * permission's rules on a table that does not exist yet, which cannot be parsed (there are no fields to
 * check names and values against) but must be no larger than a rule a table would take. Counted as the
 * parser counts: the top object is level 1, each `_and`/`_or` list adds one; each operator of a field is
 * one condition, and so is an empty group. Throws INVALID_QUERY with the parser's messages.
 */
export function checkFilterBounds(raw: unknown, limits: FilterLimits = DEFAULT_FILTER_LIMITS): void {
  let conditions = 0;
  const count = (added: number) => {
    conditions += added;
    if (conditions > limits.maxConditions) {
      throw invalidQuery(`The filter has more than ${limits.maxConditions} conditions.`, {
        reason: 'MAX_CONDITIONS',
      });
    }
  };
  const group = (value: unknown, depth: number) => {
    if (depth > limits.maxDepth) {
      throw invalidQuery(`The filter is nested deeper than ${limits.maxDepth} levels.`, {
        reason: 'MAX_DEPTH',
      });
    }
    const members = membersOf(value);
    if (members.length === 0) count(1);
    for (const [key, member] of members) {
      if (key !== '_and' && key !== '_or') count(Math.max(1, membersOf(member).length));
      else {
        const list = membersOf(member);
        if (list.length === 0) count(1);
        for (const [, item] of list) group(item, depth + 1);
      }
    }
  };
  group(raw, 1);
}

/** An object's or a list's members; nothing for any other value (its shape is no concern of the bounds). */
function membersOf(value: unknown): Array<[string, unknown]> {
  return value !== null && typeof value === 'object' ? Object.entries(value) : [];
}
