/**
 * A text's length in characters as the API counts them everywhere (docs/api.md §3a): code points, as
 * PostgreSQL counts a varchar's, so an emoji is one character, not the two UTF-16 units of `length`.
 * Past twice `max` units the text has more than `max` characters whatever it holds, and its unit count is
 * answered instead of walking it.
 */
export function characterCount(text: string, max: number): number {
  if (text.length > 2 * max) return text.length;
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
