import { invalidQuery } from './invalid-query.ts';

/**
 * A query parameter the API reads as one value: a string, or undefined when absent. Given twice or in a
 * bracket form (`mode[]=batch`, `width[a]=10`) it is an array or an object, which is refused rather than
 * taken for "absent": ignoring it would answer another question.
 */
export function singleValue(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = Object.hasOwn(query, name) ? query[name] : undefined;
  if (value === undefined || typeof value === 'string') return value;
  throw invalidQuery(`"${name}" must be given once, as a single value.`, {
    field: name,
    reason: 'INVALID_VALUE',
  });
}
