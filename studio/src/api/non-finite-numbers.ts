/**
 * A float's or a decimal's values that no JSON number can be, spelled exactly as the API answers them and
 * takes them back (docs/api.md §4): `"nan"` or `"inf"` are refused, so nothing else is offered or sent.
 */
export const NON_FINITE_NUMBERS = ['NaN', 'Infinity', '-Infinity'] as const;

export type NonFiniteNumber = (typeof NON_FINITE_NUMBERS)[number];

export function isNonFinite(value: unknown): value is NonFiniteNumber {
  return (NON_FINITE_NUMBERS as readonly unknown[]).includes(value);
}

/**
 * What a float or decimal input holds once the user picks a number or one of the non-finite values: the
 * value's spelling, or for "a number" the number loaded with the item (so that going back to it leaves
 * the field unchanged), or nothing to start from when the item held no number.
 */
export function textOfChoice(choice: NonFiniteNumber | 'number', loadedText: string): string {
  if (choice !== 'number') return choice;
  return isNonFinite(loadedText) ? '' : loadedText;
}

/**
 * Two values of a float or decimal field (numbers, or the text of a decimal or a non-finite value) in
 * PostgreSQL's order: `-Infinity` below every number, `Infinity` above, and `NaN` equal to itself and above
 * everything else.
 */
export function compareNumbers(a: unknown, b: unknown): number {
  const [x, y] = [Number(a), Number(b)];
  if (Number.isNaN(x) || Number.isNaN(y)) return Number(Number.isNaN(x)) - Number(Number.isNaN(y));
  return x === y ? 0 : x < y ? -1 : 1;
}
