import type { core } from 'zod';

/**
 * What a refused configuration value must be, in the product's words: zod's own ("Invalid input: expected
 * number, received NaN") speak of its types and change between releases. A schema's own message (a
 * duration, the secret's length) is kept; zod's defaults are reworded. Values are never quoted back: the
 * key may hold a password (`database.url`) or the secret.
 */
export function configIssueMessage(issue: core.$ZodIssue): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${EXPECTED[issue.expected] ?? 'of another type'}`;
    case 'invalid_value':
      return `must be ${oneOf(issue.values)}`;
    case 'too_big':
      return `must be at most ${issue.maximum}${issue.origin === 'string' ? ' characters long' : ''}`;
    case 'too_small':
      return `must be at least ${issue.minimum}${issue.origin === 'string' ? ' characters long' : ''}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'must be a URL' : `must be a valid ${issue.format}`;
    default:
      return 'is not a valid value';
  }
}

const ZOD_DEFAULT = /^(Invalid|Too (big|small))\b/;

const EXPECTED: Readonly<Record<string, string>> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  object: 'a mapping of keys',
  array: 'a list',
};

function oneOf(values: ReadonlyArray<unknown>): string {
  const shown = values.map((value) => JSON.stringify(value));
  if (shown.length === 1) return shown[0]!;
  return `one of ${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}
