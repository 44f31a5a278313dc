import fc from 'fast-check';
import { COMPARISON_OPERATORS } from '../../../src/domain/query/filter.ts';
import { edgeNumber, hostileText, hostileValue, PROTOTYPE_NAMES, reference } from './hostile-values.ts';
import { type Json, JsonObject } from './json-tree.ts';

const OPERATORS = [
  ...COMPARISON_OPERATORS,
  '_and',
  '_or',
  '_xyz',
  '_EQ',
  'eq',
  '',
  '_regex',
  '_some',
  ...PROTOTYPE_NAMES,
];
const DYNAMIC = [
  '$CURRENT_USER',
  '$CURRENT_ROLE',
  '$NOW',
  '$NOW(-1 day)',
  '$NOW(+1 year)',
  '$NOW(x)',
  '$CURRENT_USER.id',
];

/** A field name of the fixture, or one no collection has (dotted, prototype, empty, odd case). */
export const filterField: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      'id',
      'code',
      'description',
      'crates',
      'serial',
      'temperature',
      'price',
      'is_deleted',
      'loaded_at',
      'departed_at',
      'shipped_on',
      'pickup',
      'manifest',
      'user_created',
      'body',
      'owner',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...PROTOTYPE_NAMES, 'nope', 'manifest.items', 'ID', '', ' id', '_and'),
  },
  { weight: 1, arbitrary: hostileText },
);

const operand: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<Json>(
      1,
      0,
      -18.5,
      'F-1',
      'fish',
      true,
      false,
      null,
      '2024-01-10',
      '08:30:00',
      '2024-01-10T07:00:00Z',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom(...DYNAMIC) },
  { weight: 2, arbitrary: reference('uuid') },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof(edgeNumber, fc.constantFrom<Json>('a', null, '$NOW')), { maxLength: 4 }),
  },
  { weight: 2, arbitrary: hostileValue },
);

/** Filters (docs/api.md §4): right-looking conditions with random fields, operators and operands, nested. */
export const filterTree: fc.Arbitrary<Json> = fc.letrec<{ node: Json }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .tuple(filterField, fc.constantFrom(...OPERATORS), operand)
      .map(([field, operator, value]) => new JsonObject([[field, new JsonObject([[operator, value]])]])),
    fc
      .tuple(fc.constantFrom('_and', '_or', '_AND', '__proto__'), fc.array(tie('node'), { maxLength: 3 }))
      .map(([group, nodes]) => new JsonObject([[group, nodes]])),
    fc.tuple(filterField, tie('node')).map(([field, node]) => new JsonObject([[field, node]])),
    hostileValue,
  ),
})).node;

/** A comma list of field names, some descending (for `sort`) or wildcards (for `fields`). */
export const fieldList: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom('', '-', '+', '--'), filterField), { maxLength: 4 })
      .map((parts) => parts.map(([sign, name]) => sign + name).join(',')),
  },
  { weight: 1, arbitrary: fc.constantFrom<Json>('*', '*.*', ',', '', 'id,id', '-', '*,-id') },
  { weight: 1, arbitrary: hostileValue },
);

/**
 * The bracket form of a filter, `filter[field][_op]=value` (and deeper, and prototype names): the query
 * parameters it takes, as name and text.
 */
export const bracketFilter: fc.Arbitrary<Array<[string, Json]>> = fc
  .array(
    fc.tuple(
      fc.array(fc.oneof(filterField, fc.constantFrom(...OPERATORS), fc.constantFrom('0', '1', '')), {
        minLength: 1,
        maxLength: 4,
      }),
      operand,
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((entries) =>
    entries.map(([path, value]): [string, Json] => [
      `filter${path.map((part) => `[${part}]`).join('')}`,
      value,
    ]),
  );
