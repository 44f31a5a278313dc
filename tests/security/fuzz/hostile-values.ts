import fc from 'fast-check';
import { type Json, JsonObject, NumberLiteral, type PoolName, Reference } from './json-tree.ts';

/** Names that mean something to JavaScript objects: a server that builds objects from input must not care. */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
];

/** Text a careless server mishandles: control characters, lone surrogates, odd Unicode, SQL and filter syntax. */
const NASTY_TEXT = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'a\ud800b',
  '\udfff',
  '\ud83d',
  '\uffff',
  '\ufeffbom',
  '\u202eevil',
  'e\u0301',
  '🚢📦',
  'Ωμέγα',
  '\t\r\n',
  "' or 1=1 --",
  '"; drop table datagate_users; --',
  '%',
  '_',
  '\\',
  '$CURRENT_USER',
  '$CURRENT_ROLE',
  '$NOW',
  '$NOW(-1 day)',
  '{"_eq":1}',
  '[]',
  'null',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '0x10',
  '9999-12-31T23:59:59Z',
  '0000-00-00',
  '24:00:00',
  '2024-02-30',
  'true',
  '*',
  '-id',
  '..',
  '../../etc/passwd',
  '%00',
  '%ZZ',
  ...PROTOTYPE_NAMES,
];

/** Numbers at and past every edge: int2/int4/int8, 2^53, doubles, and literals no double holds. */
const EDGE_NUMBERS: Json[] = [
  0,
  -1,
  1,
  0.5,
  -0.000001,
  32767,
  32768,
  -32769,
  2147483647,
  2147483648,
  -2147483649,
  9007199254740991,
  1.7976931348623157e308,
  5e-324,
  new NumberLiteral('-0'),
  new NumberLiteral('1e400'),
  new NumberLiteral('-1e400'),
  new NumberLiteral('1e-400'),
  new NumberLiteral('9007199254740993'),
  new NumberLiteral('9223372036854775807'),
  new NumberLiteral('9223372036854775808'),
  new NumberLiteral('-9223372036854775809'),
  new NumberLiteral('1'.repeat(400)),
  new NumberLiteral('0.1000000000000000055511151231257827'),
  new NumberLiteral('1E2'),
];

/** A string of `length` copies of a character (ASCII, multi-byte or astral). */
const longText = fc
  .record({
    unit: fc.constantFrom('x', 'é', '🚢', '\u0000', ' '),
    length: fc.constantFrom(256, 257, 1024, 65_536, 300_000),
  })
  .map(({ unit, length }) => unit.repeat(length));

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY_TEXT) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.string({ maxLength: 6 }),
        fc.constantFrom('\u0000', '\ud800', '\udfff', '\ud83d'),
        fc.string({ maxLength: 6 }),
      )
      .map(([before, odd, after]) => before + odd + after),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.constantFrom('\ud800', '\udc00', 'a', '\u0000', '\\', '"'),
      maxLength: 8,
    }),
  },
  { weight: 1, arbitrary: longText },
);

export const edgeNumber: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
  { weight: 1, arbitrary: fc.double().filter(Number.isFinite) },
  { weight: 1, arbitrary: fc.integer() },
);

/** Arrays or objects nested `depth` levels, around the server's limit of 100. */
const deepNesting: fc.Arbitrary<Json> = fc
  .record({ depth: fc.constantFrom(10, 65, 99, 100, 101, 500), asObject: fc.boolean() })
  .map(({ depth, asObject }) => {
    let value: Json = 1;
    for (let level = 0; level < depth; level++) value = asObject ? new JsonObject([['a', value]]) : [value];
    return value;
  });

/** A value of one of the fixture's pools, by index. */
export const reference = (pool: PoolName) => fc.nat(64).map((index) => new Reference(pool, index));

/** Any reference into the fixture: an id where text was expected is as good a test as garbage. */
export const anyReference: fc.Arbitrary<Json> = fc
  .constantFrom<PoolName>('key', 'userId', 'roleId', 'permissionId', 'uuid', 'refreshToken')
  .chain(reference);

/** Small JSON of any shape, keys included from the prototype names. */
export const smallJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.constantFrom(...NASTY_TEXT),
    fc.array(tie('value'), { maxLength: 3 }),
    fc
      .array(
        fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 6 })), tie('value')),
        {
          maxLength: 3,
        },
      )
      .map((members) => new JsonObject(members)),
  ),
})).value;

/** A value of the wrong kind, whatever was expected. */
export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 5, arbitrary: hostileText },
  { weight: 3, arbitrary: edgeNumber },
  { weight: 2, arbitrary: fc.constantFrom<Json>(null, true, false, [], new JsonObject([])) },
  { weight: 2, arbitrary: smallJson },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: anyReference },
  {
    weight: 1,
    arbitrary: fc.array(fc.constantFrom<Json>(1, 'a', null), { minLength: 2, maxLength: 5 }),
  },
);

/** Mostly what `valid` gives, one time in `odds` a hostile value in its place. */
export function sometimesHostile(valid: fc.Arbitrary<Json>, odds: number): fc.Arbitrary<Json> {
  return fc.oneof({ weight: odds - 1, arbitrary: valid }, { weight: 1, arbitrary: hostileValue });
}
