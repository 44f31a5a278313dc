/**
 * A JSON value as the fuzzer builds it, before it becomes request text. Richer than what `JSON.stringify`
 * accepts, so that a body can hold what a hostile client would send: number literals no double holds
 * (`1e400`, `-0`, 400 digits), repeated and prototype-named keys, and references to the rows, users and
 * tokens of the run's fixture, whose values are only known once the fixture exists.
 */
export type Json = null | boolean | number | string | NumberLiteral | Reference | Json[] | JsonObject;

/** A number written exactly as given. */
export class NumberLiteral {
  constructor(readonly text: string) {}
}

/** The `index`-th value (modulo its size) of one of the fixture's pools: a row key, a user id, a token. */
export class Reference {
  constructor(
    readonly pool: PoolName,
    readonly index: number,
  ) {}
}

/** An object as a list of members, so that a key may repeat and `__proto__` is just a key. */
export class JsonObject {
  constructor(readonly members: ReadonlyArray<readonly [string, Json]>) {}
}

export const POOL_NAMES = [
  'collection',
  'key',
  'userId',
  'roleId',
  'permissionId',
  'field',
  'email',
  'password',
  'refreshToken',
  'uuid',
] as const;

export type PoolName = (typeof POOL_NAMES)[number];

export type Pools = Readonly<Record<PoolName, ReadonlyArray<string>>>;

export function resolve(reference: Reference, pools: Pools): string {
  const pool = pools[reference.pool];
  return pool[reference.index % pool.length]!;
}

/** JSON text; strings through `JSON.stringify`, which escapes lone surrogates and NUL as `\uXXXX`. */
export function jsonText(value: Json, pools: Pools): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  // Non-finite numbers never come out of the generators as plain numbers; NumberLiteral carries them.
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (value instanceof NumberLiteral) return value.text;
  if (value instanceof Reference) return JSON.stringify(resolve(value, pools));
  if (Array.isArray(value)) return `[${value.map((item) => jsonText(item, pools)).join(',')}]`;
  return `{${value.members.map(([key, member]) => `${JSON.stringify(key)}:${jsonText(member, pools)}`).join(',')}}`;
}

/** The text a query-string parameter carries for a value: strings as they are, the rest as JSON. */
export function queryText(value: Json, pools: Pools): string {
  if (typeof value === 'string') return value;
  if (value instanceof Reference) return resolve(value, pools);
  if (value instanceof NumberLiteral) return value.text;
  return jsonText(value, pools);
}

/** A readable form of a generated value for failure reports (references shown by pool and index). */
export function describe(value: Json): string {
  if (value instanceof Reference) return `<${value.pool}#${value.index}>`;
  if (value instanceof NumberLiteral) return value.text;
  if (Array.isArray(value)) return `[${value.map(describe).join(',')}]`;
  if (value instanceof JsonObject) {
    return `{${value.members.map(([key, member]) => `${JSON.stringify(key)}:${describe(member)}`).join(',')}}`;
  }
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 120)}…(${text.length} chars)` : text;
}
