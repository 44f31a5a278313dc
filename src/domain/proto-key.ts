/**
 * Whether a parsed JSON value holds an own `__proto__` key at any depth (JSON.parse makes it an own key,
 * which a client's later merge of the value could turn into its prototype): the API refuses such values
 * wherever a client's JSON comes in (docs/api.md §4a). Iterative, so a deeply nested value cannot
 * overflow the stack.
 */
export function hasProtoKey(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Object.hasOwn(node, '__proto__')) return true;
    for (const member of Object.values(node)) pending.push(member);
  }
  return false;
}
