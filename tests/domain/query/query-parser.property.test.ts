import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpContext } from '../../../src/adapters/http/http-state.ts';
import { itemQuery } from '../../../src/adapters/http/item-query-string.ts';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { bindDynamicValues } from '../../../src/domain/query/bind-dynamic-values.ts';
import { matchesFilter } from '../../../src/domain/query/evaluate-filter.ts';
import { COMPARISON_OPERATORS, type FilterNode } from '../../../src/domain/query/filter.ts';
import type { ItemQuery } from '../../../src/domain/query/item-query.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import {
  MAX_SEARCH_LENGTH,
  parseItemQuery,
  type QueryLimits,
} from '../../../src/domain/query/parse-item-query.ts';
import { fieldOf } from '../../../src/domain/schema/collection-schema.ts';
import { cargoRows, cargosSchema } from '../../support/cargos-schema.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { canonicalRows } from './canonical-rows.ts';

/**
 * "Any input gives either a valid query or a 400, never an exception": the filter/sort/fields parser
 * against generated input, from arbitrary text to filters that look right but are not. A failure prints
 * fast-check's seed and path; rerun one with FC_SEED=<seed>.
 */
const SEED = Number(process.env.FC_SEED ?? 20_260_101);
const check = <T>(property: fc.IProperty<T> | fc.IAsyncProperty<T>, numRuns: number) =>
  fc.assert(property as fc.IAsyncProperty<T>, { seed: SEED, numRuns });

const LIMITS: QueryLimits = { limitDefault: 100, limitMax: 1000 };
const rows = canonicalRows(cargosSchema, cargoRows);
const context = {
  user: '0190a1b2-0000-7000-8000-0000000000aa',
  role: null,
  now: new Date('2024-03-15T12:00:00Z'),
};

/** Runs the parser; a refusal must be the contract's INVALID_QUERY, anything else fails the property. */
function parsedOrRefused<T>(parse: () => T): T | null {
  try {
    return parse();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'INVALID_QUERY') {
      assert.ok(error.message.length < 400, 'refusal messages stay short, whatever the input');
      return null;
    }
    throw error;
  }
}

/** A parsed filter is usable: dynamic values bind and every row evaluates without throwing. */
function assertUsableFilter(node: FilterNode) {
  const bound = bindDynamicValues(node, context, cargosSchema);
  for (const row of rows) matchesFilter(bound, row, cargosSchema);
}

/** A parsed query keeps its promises: known fields only, limits respected. */
function assertValidQuery(query: ItemQuery, limits: QueryLimits) {
  if (query.fields !== '*') {
    for (const entry of query.fields) {
      const name = typeof entry === 'string' ? entry : entry.field;
      assert.ok(name === '*' || fieldOf(cargosSchema, name), `field ${name}`);
    }
  }
  for (const { field, direction } of query.sort) {
    assert.ok(fieldOf(cargosSchema, field), `sort ${field}`);
    assert.ok(direction === 'asc' || direction === 'desc');
  }
  if (query.limit === null) assert.is(limits.limitMax, -1);
  else assert.ok(query.limit >= 0 && (limits.limitMax === -1 || query.limit <= limits.limitMax));
  assert.ok(Number.isSafeInteger(query.offset) && query.offset >= 0, `offset ${query.offset}`);
  if (query.search !== null) {
    assert.ok([...query.search].length <= MAX_SEARCH_LENGTH && !query.search.includes('\u0000'));
  }
  if (query.filter) assertUsableFilter(query.filter);
}

// ---------------------------------------------------------------------------------------------
// Building blocks

const FIELD_NAMES = [...cargosSchema.fields.map((field) => field.name), 'nope', 'a.b', '', 'ID', ' id'];
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const OPERATORS = [...COMPARISON_OPERATORS, '_like', '_EQ', 'eq', '_not', '_and', '_or', '_regex'];
const TRICKY_TEXT = [
  '',
  ' ',
  '1',
  '-1',
  '0',
  '-0',
  '1e400',
  '1e-400',
  ' 12 ',
  'NaN',
  'Infinity',
  'true',
  'false',
  'null',
  '$NOW',
  '$NOW(-1 day)',
  '$NOW(1e400 years)',
  '$NOW(',
  '$NOW(-100000 years)',
  '$CURRENT_USER',
  '$CURRENT_ROLE',
  '$CURRENT_USER.id',
  '2024-02-30',
  '2024-01-01T10:00:00Z',
  '2024-01-01T10:00:00+25:00',
  '23:59:60',
  '0190a1b2-0000-7000-8000-000000000001',
  '9223372036854775808',
  '-9223372036854775809',
  '123456789012345678901234567890.5',
  'a,b',
  ',',
  '%_',
  '\\',
  '\u0000',
  '\ud800',
  '🐟',
  "'; drop table cargos; --",
];

/** Text of every kind: any code point (lone surrogates included), JSON-ish characters, tricky values. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom(...'{}[]":,_$-.0123456789eEtrufalsn \\'.split('')), maxLength: 60 }),
  fc.constantFrom(...TRICKY_TEXT),
);
const fieldName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) },
  { weight: 1, arbitrary: anyText },
);
const operatorName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...OPERATORS) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) },
  { weight: 1, arbitrary: anyText },
);
const smallJson = fc.jsonValue({ maxDepth: 2 });
const operand = fc.oneof(
  anyText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(anyText, fc.integer(), fc.double(), fc.constant(null)), { maxLength: 4 }),
  smallJson,
);

/** An object whose keys may be prototype member names, set as own properties (as JSON.parse does). */
function ownObject(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
  }
  return object;
}

/** Filters that are nearly right: nested `_and`/`_or`, random operators and values, some junk. */
const { filter: nearlyRightFilter } = fc.letrec<{
  filter: unknown;
  logical: unknown;
  condition: unknown;
  junk: unknown;
}>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: tie('condition') },
    { weight: 3, arbitrary: tie('logical') },
    { weight: 1, arbitrary: tie('junk') },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fieldName, fc.oneof(tie('filter'), tie('condition'))), { maxLength: 3 })
        .map(ownObject),
    },
  ),
  logical: fc
    .tuple(
      fc.constantFrom('_and', '_or', '_and', '_or', '_not', '_AND'),
      fc.oneof(
        { weight: 5, arbitrary: fc.array(tie('filter'), { maxLength: 4 }) },
        // qs turns a[25]=x into { "25": x } past its array limit.
        { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('0', '1', '25', '-1', 'x'), tie('filter')) },
        { weight: 1, arbitrary: tie('junk') },
      ),
    )
    .map(([operator, items]) => ownObject([[operator, items]])),
  condition: fc
    .tuple(fieldName, fc.array(fc.tuple(operatorName, operand), { minLength: 0, maxLength: 3 }))
    .map(([field, conditions]) => ownObject([[field, ownObject(conditions)]])),
  junk: fc.oneof(smallJson, anyText),
}));

// ---------------------------------------------------------------------------------------------
const filters = suite('filter parser: any input → a filter or INVALID_QUERY');

filters('arbitrary strings as ?filter= text', () => {
  check(
    fc.property(anyText, (text) => {
      const node = parsedOrRefused(() => parseFilter(text, cargosSchema));
      if (node) assertUsableFilter(node);
    }),
    5000,
  );
});

filters('arbitrary JSON values, as values and as JSON text (whole or cut short)', () => {
  check(
    fc.property(fc.jsonValue({ maxDepth: 5 }), fc.nat(), (value, cut) => {
      for (const input of [value, JSON.stringify(value)]) {
        const node = parsedOrRefused(() => parseFilter(input, cargosSchema));
        if (node) assertUsableFilter(node);
      }
      const text = JSON.stringify(value);
      parsedOrRefused(() => parseFilter(text.slice(0, cut % (text.length + 1)), cargosSchema));
    }),
    3000,
  );
});

filters(
  'structured but wrong filters: nested _and/_or, random operators and operands, prototype keys',
  () => {
    let parsed = 0;
    check(
      fc.property(nearlyRightFilter, fc.boolean(), (filter, asText) => {
        const input = asText ? (JSON.stringify(filter) ?? 'null') : filter;
        const node = parsedOrRefused(() => parseFilter(input, cargosSchema));
        if (node) {
          parsed++;
          assertUsableFilter(node);
        }
      }),
      8000,
    );
    assert.ok(parsed > 100, `enough generated filters were valid to exercise evaluation (${parsed})`);
  },
);

filters(
  'filters as the bracket form delivers them (strings at the leaves, keys from the query string)',
  () => {
    const bracketValue: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        { weight: 3, arbitrary: anyText },
        { weight: 1, arbitrary: fc.array(anyText, { maxLength: 3 }) },
        {
          weight: 2,
          arbitrary: fc
            .array(fc.tuple(fc.oneof(fieldName, operatorName), tie('node')), { maxLength: 3 })
            .map(ownObject),
        },
      ),
    })).node;
    check(
      fc.property(bracketValue, (value) => {
        const node = parsedOrRefused(() => parseFilter(value, cargosSchema));
        if (node) assertUsableFilter(node);
      }),
      3000,
    );
  },
);

filters.run();

// ---------------------------------------------------------------------------------------------
const queries = suite('item query parser: any parameters → a valid query or INVALID_QUERY');

const PARAMETERS = [
  'fields',
  'sort',
  'limit',
  'offset',
  'page',
  'search',
  'meta',
  'filter',
  'deep',
  'aggregate',
];
/** What `qs` can hand over for one parameter: text, repeated text, or nested objects. */
const parameterValue = fc.oneof(
  { weight: 4, arbitrary: anyText },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.constantFrom('-id', '*', '-', '--id')), {
        maxLength: 4,
      })
      .map((names) => names.join(',')),
  },
  { weight: 1, arbitrary: fc.array(anyText, { maxLength: 3 }) },
  { weight: 1, arbitrary: nearlyRightFilter },
  { weight: 1, arbitrary: fc.integer({ min: -2, max: 2000 }).map(String) },
);

queries('arbitrary parameter objects (sort, fields, limit, offset, page, search, meta, filter)', () => {
  check(
    fc.property(
      fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom(...PARAMETERS), fc.constantFrom(...PROTOTYPE_KEYS)),
          parameterValue,
        ),
        {
          maxLength: 5,
        },
      ),
      fc.constantFrom(1000, -1),
      (entries, limitMax) => {
        const limits = { limitDefault: 100, limitMax };
        const query = parsedOrRefused(() => parseItemQuery(ownObject(entries), cargosSchema, limits));
        if (query) assertValidQuery(query, limits);
      },
    ),
    6000,
  );
});

/** Query-string text: parameter names and values of any bytes, percent-encoded or raw, bracketed or not. */
const queryStringPart = fc.oneof(
  fc
    .uint8Array({ maxLength: 12 })
    .map((bytes) => [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')),
  fc.string({
    unit: fc.constantFrom(...'[]{}"=&,%_-.*$:0123456789abcdefilmnorstuvwxyz'.split('')),
    maxLength: 30,
  }),
  fc.constantFrom(
    'filter',
    'filter[id]',
    'filter[description][_eq]',
    'filter[_or][0]',
    'sort',
    'fields',
    'limit',
    'search',
    'meta',
    'page',
    'offset',
    '__proto__',
    'constructor[prototype]',
  ),
  anyText.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd'))),
);
const queryString = fc
  .array(fc.tuple(queryStringPart, queryStringPart), { maxLength: 5 })
  .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('&'));

queries('arbitrary query strings, through the same qs parsing as the item routes', () => {
  check(
    fc.property(queryString, (querystring) => {
      const query = parsedOrRefused(() =>
        parseItemQuery(itemQuery({ querystring } as HttpContext), cargosSchema, LIMITS),
      );
      if (query) assertValidQuery(query, LIMITS);
    }),
    5000,
  );
});

queries.run();

// ---------------------------------------------------------------------------------------------
const http = suite<{ app: TestApp; token: string }>('GET /items/cargos with random query strings');

http.before(async (context) => {
  const persistence = createInMemoryPersistence();
  context.app = await startTestApp({ persistence });
  context.token = (await context.app.login(await context.app.seedAdmin())).access_token;
  const created = await context.app.request('POST', '/collections', {
    token: context.token,
    body: {
      collection: 'cargos',
      fields: [
        { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
        { field: 'description', type: 'text' },
        { field: 'temperature', type: 'float' },
        { field: 'is_deleted', type: 'boolean' },
        { field: 'manifest', type: 'json' },
      ],
    },
  });
  assert.is(created.status, 200, created.text);
});
http.after(({ app }) => app.close());

http('never a 500: either 200 with a list or a contract error', async ({ app, token }) => {
  await check(
    fc.asyncProperty(queryString, async (querystring) => {
      const response = await app.request('GET', `/items/cargos?${querystring}`, { token });
      assert.ok(response.status < 500, `?${querystring} → ${response.status} ${response.text.slice(0, 200)}`);
      if (response.status === 200) assert.ok(Array.isArray(response.body), querystring);
      else {
        const { errors } = response.body as { errors: Array<{ extensions: { code: string } }> };
        assert.type(errors[0]!.extensions.code, 'string');
      }
    }),
    600,
  );
});

http.run();
