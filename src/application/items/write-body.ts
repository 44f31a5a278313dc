import { invalidPayload } from '../../domain/errors.ts';

/** The shapes of a batch update or delete body (docs/api.md §5). */
export type BatchTarget =
  | { kind: 'keys'; keys: unknown[] }
  | { kind: 'query'; filter: unknown }
  /** Update only: partial items, each carrying its own primary key. */
  | { kind: 'items'; items: unknown[] };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `{ keys, data }`, `{ query: { filter }, data }` or an array of partial items with their keys. Anything
 * else, or both `keys` and `query`, is a payload error: guessing would write to rows the caller did not mean.
 */
export function parseUpdateBody(body: unknown): { target: BatchTarget; data: unknown } {
  if (Array.isArray(body)) return { target: { kind: 'items', items: body }, data: undefined };
  if (!isObject(body)) throw invalidPayload('Expected an array of items, or an object with "data".');
  const extra = Object.keys(body).find((key) => !['keys', 'query', 'data'].includes(key));
  // Most often an item's fields sent to the collection's path (Directus would update every row there).
  if (extra !== undefined)
    throw invalidPayload(
      `Unknown property "${extra}": a batch update is { "keys": [...], "data": {...} }, ` +
        '{ "query": { "filter": {...} }, "data": {...} } or an array of items with their keys; ' +
        'one item is updated at PATCH /items/:collection/:key.',
      extra,
    );
  if (body.data === undefined) throw invalidPayload('"data" is required with "keys" or "query".', 'data');
  return { target: targetOf(body), data: body.data };
}

/** A batch target that names rows rather than carrying data: what a delete takes. */
export type RowTarget = Exclude<BatchTarget, { kind: 'items' }>;

/** An array of keys, `{ keys }` or `{ query: { filter } }`. */
export function parseDeleteBody(body: unknown): RowTarget {
  if (Array.isArray(body)) return { kind: 'keys', keys: body };
  if (!isObject(body))
    throw invalidPayload('Expected an array of keys, { "keys": [...] } or { "query": {...} }.');
  const extra = Object.keys(body).find((key) => !['keys', 'query'].includes(key));
  if (extra !== undefined) throw invalidPayload(`Unknown property "${extra}".`, extra);
  return targetOf(body);
}

function targetOf(body: Record<string, unknown>): RowTarget {
  if (body.keys !== undefined && body.query !== undefined) {
    throw invalidPayload('Give either "keys" or "query", not both.');
  }
  if (Array.isArray(body.keys)) return { kind: 'keys', keys: body.keys };
  if (body.keys !== undefined) throw invalidPayload('"keys" must be an array.', 'keys');
  if (isObject(body.query)) {
    const extra = Object.keys(body.query).find((key) => key !== 'filter');
    if (extra !== undefined)
      throw invalidPayload(`Only "filter" is supported in "query", not "${extra}".`, 'query');
    if (body.query.filter === undefined) throw invalidPayload('"query" needs a "filter".', 'query');
    return { kind: 'query', filter: body.query.filter };
  }
  throw invalidPayload('Expected "keys" or "query".');
}
