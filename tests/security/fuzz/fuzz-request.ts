import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { TestResponse } from '../../support/test-app.ts';
import { bracketFilter, fieldList, filterTree } from './filters.ts';
import { CALLER_NAMES, type CallerName, type Fixture } from './fuzz-fixture.ts';
import { hostileText, hostileValue, PROTOTYPE_NAMES, reference } from './hostile-values.ts';
import {
  describe,
  type Json,
  jsonText,
  type PoolName,
  type Pools,
  queryText,
  Reference,
  resolve,
} from './json-tree.ts';
import type { FuzzOperation } from './operations.ts';
import {
  type FuzzSchema,
  mutateOneLeaf,
  type SchemaContext,
  validValuesOf,
  valuesOf,
} from './schema-values.ts';

/** How a body travels: its media type, its compression, and damage done to its bytes. */
const TRANSPORTS = [
  'json',
  'gzip',
  'deflate',
  'br',
  'corrupt-gzip',
  'corrupt-deflate',
  'corrupt-br',
  'text/plain',
  'no-content-type',
  'charset-latin1',
  'vendor+json',
  'invalid-utf8',
  'truncated',
  'bom',
  'empty',
] as const;

export type Transport = (typeof TRANSPORTS)[number];

/** One generated request, symbolic: references and the caller are resolved against the run's fixture. */
export type FuzzRequest = {
  operation: string;
  method: string;
  route: string;
  path: Record<string, Json>;
  query: Array<[string, Json]>;
  /** Appended to the query string without encoding: malformed escapes and the like. */
  rawQuery: string;
  body: { value: Json; transport: Transport } | undefined;
  caller: CallerName;
  tokenPlace: 'header' | 'query' | 'both';
  headers: Record<string, string>;
};

/** Text a request holds that is not well formed, which the server refuses before reading the token. */
export type InputClass = 'nul' | 'lone-surrogate';

const POOL_OF_PARAMETER: Record<string, (route: string) => PoolName> = {
  collection: () => 'collection',
  key: () => 'key',
  field: () => 'field',
  id: (route) =>
    route.startsWith('/users') ? 'userId' : route.startsWith('/roles') ? 'roleId' : 'permissionId',
};

const pathValue = (name: string, route: string): fc.Arbitrary<Json> =>
  fc.oneof(
    { weight: 6, arbitrary: reference((POOL_OF_PARAMETER[name] ?? (() => 'uuid'))(route)) },
    { weight: 1, arbitrary: reference('uuid') },
    { weight: 2, arbitrary: hostileText.filter((text) => text.length < 2000) },
  );

/** Values of one query parameter of the document, by what it means rather than its declared type. */
function queryValue(name: string, operation: FuzzOperation, context: SchemaContext): fc.Arbitrary<Json> {
  if (name === 'filter') return filterTree;
  if (name === 'sort' || name === 'fields') return fieldList;
  if (name === 'meta')
    return fc.oneof(
      fc.constantFrom<Json>('*', 'total_count', 'filter_count', 'total_count,filter_count', 'nope', ''),
      hostileValue,
    );
  const parameter = operation.query.find((candidate) => candidate.name === name);
  return valuesOf(parameter?.schema ?? {}, context);
}

/** Parameters nobody declared: Directus ones the server refuses, tokens, prototype names, repeats. */
const strayQuery: fc.Arbitrary<Array<[string, Json]>> = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(
        'deep',
        'aggregate',
        'groupBy',
        'alias',
        'export',
        'limit',
        'filter',
        'access_token',
        'nope',
        ...PROTOTYPE_NAMES,
        'filter[__proto__][x]',
        'fields[]',
        'sort[0]',
      ),
      hostileText.filter((text) => text.length < 64),
    ),
    fc.oneof(hostileValue, fc.constantFrom<Json>('1', '')),
  ),
  { maxLength: 2 },
);

const rawQuery = fc.oneof(
  { weight: 12, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '%',
      '%zz',
      'a=%',
      '%00=1',
      'filter=%7B',
      'limit=%ED%A0%80',
      'x=%C0%80',
      '&&&',
      '=',
      'a[=1',
      `limit=${'9'.repeat(400)}`,
      `${'x='.repeat(2000)}1`,
    ),
  },
);

const transports = fc.oneof(
  { weight: 30, arbitrary: fc.constant<Transport>('json') },
  fc.constantFrom(...TRANSPORTS),
);

/**
 * A body: valid, valid but for one hostile leaf (what carries NUL, odd numbers or wrong types past the
 * shape checks into the handlers and the database), or hostile anywhere.
 */
function bodyValues(schema: FuzzSchema, context: SchemaContext): fc.Arbitrary<Json> {
  const valid = validValuesOf(schema, context);
  const replacement = fc.oneof({ weight: 2, arbitrary: hostileText }, hostileValue);
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    {
      weight: 4,
      arbitrary: fc
        .tuple(valid, fc.nat(), replacement)
        .map(([value, index, hostile]) => mutateOneLeaf(value, index, hostile)),
    },
    { weight: 2, arbitrary: valuesOf(schema, context) },
  );
}

/** Requests for one operation: its parameters and body from its description, mutated. */
export function requestsFor(operation: FuzzOperation, context: SchemaContext): fc.Arbitrary<FuzzRequest> {
  const pathNames = [...operation.route.matchAll(/:([a-z]+)/g)].map((match) => match[1]!);
  const path = fc.record(
    Object.fromEntries(pathNames.map((name) => [name, pathValue(name, operation.route)])),
  );
  const declared = fc
    .tuple(
      ...operation.query.map(({ name }) =>
        fc.option(
          queryValue(name, operation, context).map((value): [string, Json] => [name, value]),
          { freq: 2, nil: undefined },
        ),
      ),
    )
    .map((entries) => entries.filter((entry) => entry !== undefined));
  const usesFilter = operation.query.some(({ name }) => name === 'filter');
  const query = fc
    .tuple(
      declared,
      usesFilter ? fc.option(bracketFilter, { freq: 4, nil: undefined }) : fc.constant(undefined),
      fc.option(strayQuery, { freq: 5, nil: undefined }),
    )
    .map(([entries, brackets, stray]) => [...entries, ...(brackets ?? []), ...(stray ?? [])]);
  const body = operation.body
    ? fc.option(fc.record({ value: bodyValues(operation.body, context), transport: transports }), {
        freq: 20,
        nil: undefined,
      })
    : fc.option(fc.record({ value: hostileValue, transport: fc.constant<Transport>('json') }), {
        freq: 20,
        nil: undefined,
      });
  const method = fc.oneof(
    { weight: 30, arbitrary: fc.constant(operation.method) },
    fc.constantFrom('HEAD', 'OPTIONS', 'PUT', 'PROPFIND', 'GET', 'POST', 'PATCH', 'DELETE', 'SEARCH'),
  );
  return fc.record({
    operation: fc.constant(`${operation.method} ${operation.route}`),
    method,
    route: fc.constant(operation.route),
    path,
    query,
    rawQuery,
    body,
    caller: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom<CallerName>('admin', 'clerk') },
      { weight: 4, arbitrary: fc.constantFrom<CallerName>('clerkStatic', 'spare', 'anonymous') },
      { weight: 3, arbitrary: fc.constantFrom(...CALLER_NAMES) },
    ),
    tokenPlace: fc.oneof(
      { weight: 12, arbitrary: fc.constant<'header'>('header') },
      fc.constantFrom<'query' | 'both'>('query', 'both'),
    ),
    headers: fc.oneof(
      { weight: 12, arbitrary: fc.constant({}) },
      fc.constantFrom<Record<string, string>>(
        { 'X-Request-Id': 'a'.repeat(200) },
        { 'X-Request-Id': '../../etc' },
        { Accept: 'text/html' },
        { 'Accept-Encoding': 'br' },
        { 'X-Forwarded-For': '10.0.0.1, 10.0.0.2' },
        { Origin: 'https://evil.example' },
        { 'Content-Language': 'é' },
      ),
    ),
  });
}

/** Percent-encodes text as UTF-8; a lone surrogate becomes its three (invalid) CESU-8 bytes, as a careless client sends it. */
function percentEncode(text: string): string {
  let encoded = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      encoded += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      encoded += encodeURIComponent(char);
    }
  }
  return encoded;
}

type Sendable = {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
};

/** The request as bytes on the wire: references resolved, the caller's token placed, the body encoded. */
export function materialize(request: FuzzRequest, fixture: Fixture): Sendable {
  const { pools } = fixture;
  const path = request.route.replace(/:([a-z]+)/g, (_match, name: string) =>
    percentEncode(queryText(request.path[name] ?? '', pools)),
  );
  const caller = fixture.callers[request.caller];
  const headers: Record<string, string> = { ...request.headers };
  const query = request.query.map(
    ([name, value]) => `${percentEncode(name)}=${percentEncode(queryText(value, pools))}`,
  );
  if (caller.header) headers.Authorization = caller.header;
  if (caller.token !== undefined) {
    if (request.tokenPlace !== 'query') headers.Authorization = `Bearer ${caller.token}`;
    if (request.tokenPlace !== 'header') query.push(`access_token=${percentEncode(caller.token)}`);
  }
  if (request.rawQuery) query.push(request.rawQuery);
  const url = `${fixture.app.url}${path}${query.length ? `?${query.join('&')}` : ''}`;
  const canCarryBody = request.method !== 'GET' && request.method !== 'HEAD';
  if (!request.body || !canCarryBody) return { url, method: request.method, headers, body: undefined };
  const text = jsonText(request.body.value, pools);
  const { body, type, encoding } = encodeBody(text, request.body.transport);
  if (type) headers['Content-Type'] = type;
  if (encoding) headers['Content-Encoding'] = encoding;
  return { url, method: request.method, headers, body };
}

function encodeBody(
  text: string,
  transport: Transport,
): { body: Uint8Array; type?: string; encoding?: string } {
  const utf8 = Buffer.from(text, 'utf8');
  const json = 'application/json';
  const corrupt = (compressed: Buffer) =>
    Buffer.concat([
      compressed.subarray(0, Math.max(4, compressed.length >> 1)),
      Buffer.from([0xde, 0xad, 0xbe, 0xef]),
    ]);
  switch (transport) {
    case 'json':
      return { body: utf8, type: json };
    case 'gzip':
      return { body: gzipSync(utf8), type: json, encoding: 'gzip' };
    case 'deflate':
      return { body: deflateSync(utf8), type: json, encoding: 'deflate' };
    case 'br':
      return { body: brotliCompressSync(utf8), type: json, encoding: 'br' };
    case 'corrupt-gzip':
      return { body: corrupt(gzipSync(utf8)), type: json, encoding: 'gzip' };
    case 'corrupt-deflate':
      return { body: corrupt(deflateSync(utf8)), type: json, encoding: 'deflate' };
    case 'corrupt-br':
      return { body: corrupt(brotliCompressSync(utf8)), type: json, encoding: 'br' };
    case 'text/plain':
      return { body: utf8, type: 'text/plain' };
    case 'no-content-type':
      return { body: utf8 };
    case 'charset-latin1':
      return { body: utf8, type: 'application/json; charset=latin1' };
    case 'vendor+json':
      return { body: utf8, type: 'application/vnd.datagate+json' };
    case 'invalid-utf8':
      return {
        body: Buffer.concat([
          utf8.subarray(0, utf8.length >> 1),
          Buffer.from([0xff, 0xc0, 0x80]),
          utf8.subarray(utf8.length >> 1),
        ]),
        type: json,
      };
    case 'truncated':
      return { body: utf8.subarray(0, utf8.length >> 1), type: json };
    case 'bom':
      return { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]), type: json };
    case 'empty':
      return { body: new Uint8Array(0), type: json };
  }
}

export async function send(request: FuzzRequest, fixture: Fixture): Promise<TestResponse> {
  const { url, method, headers, body } = materialize(request, fixture);
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { unparsable: text.slice(0, 200) };
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The ill-formed text in a request, wherever it is (path, query, body, keys). */
export function inputClasses(request: FuzzRequest, pools: Pools): Set<InputClass> {
  const texts: string[] = [request.rawQuery];
  const collect = (value: Json) => {
    if (typeof value === 'string') texts.push(value);
    else if (value instanceof Reference) texts.push(resolve(value, pools));
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === 'object' && 'members' in value) {
      for (const [key, member] of value.members) {
        texts.push(key);
        collect(member);
      }
    }
  };
  Object.values(request.path).forEach(collect);
  for (const [name, value] of request.query) {
    texts.push(name);
    collect(value);
  }
  if (request.body) collect(request.body.value);
  const classes = new Set<InputClass>();
  if (texts.some((text) => text.includes('\u0000') || /%00|%C0%80/i.test(text))) classes.add('nul');
  if (texts.some((text) => LONE_SURROGATE.test(text) || /%ED%[AB]/i.test(text)))
    classes.add('lone-surrogate');
  return classes;
}

/** The request as a reader of a failure wants it: the operation, then what was sent. */
export function describeRequest(request: FuzzRequest, fixture: Fixture): string {
  const sent = materialize(request, fixture);
  const body = request.body ? `${request.body.transport} ${describe(request.body.value)}` : 'none';
  const url = sent.url.replace(fixture.app.url, '');
  return [
    `${request.method} ${url.length > 400 ? `${url.slice(0, 400)}…` : url}  (${request.operation}, as ${request.caller}, token in ${request.tokenPlace})`,
    `  headers: ${JSON.stringify(request.headers)}`,
    `  body: ${body.length > 600 ? `${body.slice(0, 600)}…` : body}`,
  ].join('\n');
}
