import type { core } from 'zod';

/**
 * The wording of a body member that does not fit its route's wire shape: the product's own sentence,
 * naming the member as the caller wrote it (`"schema.max_length"`) and what it must be. zod's own messages
 * ("Invalid input: expected record, received array") speak of its types, and change between releases.
 */
export function payloadIssueMessage(issue: core.$ZodRawIssue): string {
  const member = memberOf(issue);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined && member !== BODY) return `${member} is required.`;
      return `${member} must be ${EXPECTED[issue.expected] ?? 'of another type'}.`;
    case 'invalid_value':
      return `${member} must be ${oneOf(issue.values)}.`;
    case 'invalid_union':
      return `${member} must be ${unionOf(issue.errors)}.`;
    case 'too_small':
      return `${member} must ${bound('at least', issue.origin, issue.minimum)}.`;
    case 'too_big':
      return `${member} must ${bound('at most', issue.origin, issue.maximum)}.`;
    case 'custom':
      // A rule a refinement checks, worded by it: `params: { mustBe: 'true: …' }`.
      if (typeof issue.params?.mustBe === 'string') return `${member} must be ${issue.params.mustBe}.`;
      return `${member} is not valid.`;
    case 'unrecognized_keys':
      // "member", not "field": on /collections and /fields a field is a column, and "meta" is none.
      return `Unknown member "${[...(issue.path ?? []), issue.keys[0]].join('.')}".`;
    default:
      return `${member} is not valid.`;
  }
}

/**
 * A schema's own wording of what a member must be, for shapes the generic words would describe poorly
 * (a nullable object, a UUID in a pattern): `z.record(…, { error: mustBe('a JSON object or null') })`.
 */
export function mustBe(expected: string): (issue: core.$ZodRawIssue) => string {
  return (issue) => {
    const member = memberOf(issue);
    return issue.input === undefined ? `${member} is required.` : `${member} must be ${expected}.`;
  };
}

const BODY = 'Request body';

function memberOf(issue: core.$ZodRawIssue): string {
  const path = issue.path ?? [];
  return path.length === 0 ? BODY : `"${path.join('.')}"`;
}

/** zod's type names in JSON's words. */
const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a JSON object',
  record: 'a JSON object',
  array: 'an array',
  tuple: 'an array',
  null: 'null',
};

function oneOf(values: ReadonlyArray<unknown>): string {
  const shown = values.map((value) => JSON.stringify(value));
  if (shown.length === 1) return shown[0]!;
  return `one of ${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}

/** A union of plain types (`string | number | null`) reads as its list; any other, as "one of the accepted shapes". */
function unionOf(alternatives: ReadonlyArray<ReadonlyArray<core.$ZodIssue>>): string {
  const expected = alternatives.map((issues) => {
    const [only] = issues;
    return issues.length === 1 && only?.code === 'invalid_type' && only.path.length === 0
      ? EXPECTED[only.expected]
      : undefined;
  });
  if (expected.some((words) => words === undefined)) return 'of one of the accepted shapes';
  const words = [...new Set(expected as string[])];
  if (words.length === 1) return words[0]!;
  // The last comma keeps "true or false" whole: "a string, a number, true or false, or null".
  return `${words.slice(0, -1).join(', ')}${words.length > 2 ? ',' : ''} or ${words.at(-1)}`;
}

function bound(side: 'at least' | 'at most', origin: string, limit: number | bigint): string {
  if (origin === 'string') return `be ${side} ${limit} characters long`;
  if (origin === 'array' || origin === 'set') return `hold ${side} ${limit} entries`;
  return `be ${side} ${limit}`;
}
