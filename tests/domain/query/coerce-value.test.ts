import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/domain/errors.ts';
import { coerceKey, coerceValue } from '../../../src/domain/query/coerce-value.ts';
import type { FieldSchema } from '../../../src/domain/schema/collection-schema.ts';
import { fieldOf } from '../../../src/domain/schema/collection-schema.ts';
import { cargosSchema } from '../../support/cargos-schema.ts';

const column = (name: string): FieldSchema => fieldOf(cargosSchema, name)!;

/** [field, raw input, canonical value] */
const ACCEPTED: ReadonlyArray<readonly [string, unknown, unknown]> = [
  ['id', '0190A1B2-0000-7000-8000-00000000000F', '0190a1b2-0000-7000-8000-00000000000f'],
  ['id', '00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000'],
  ['description', 'Frozen fish', 'Frozen fish'],
  ['description', '', ''],
  ['description', '  spaced  ', '  spaced  '],
  ['description', 'Ünïcødé 🐟', 'Ünïcødé 🐟'],
  ['description', 42, '42'],
  ['code', 'x'.repeat(300), 'x'.repeat(300)],
  ['crate_count', '10', 10],
  ['crate_count', 10, 10],
  ['crate_count', '-2147483648', -2147483648],
  ['crate_count', '2147483647', 2147483647],
  ['crate_count', '+7', 7],
  ['crate_count', '007', 7],
  ['crate_count', '-0', 0],
  ['crate_count', 1e3, 1000],
  ['pallets', '32767', 32767],
  ['pallets', -32768, -32768],
  ['serial_number', '9223372036854775807', '9223372036854775807'],
  ['serial_number', '-9223372036854775808', '-9223372036854775808'],
  ['serial_number', '0009', '9'],
  ['serial_number', 9007199254740991, '9007199254740991'],
  ['temperature', '-18.5', -18.5],
  ['temperature', '1e3', 1000],
  ['temperature', '.5', 0.5],
  ['temperature', '5.', 5],
  ['temperature', 1.7976931348623157e308, 1.7976931348623157e308],
  ['temperature', '1e-320', 1e-320],
  ['temperature', '-0', 0],
  // What the API writes for a float that is no JSON number (§4), read back: an export re-imports.
  ['temperature', 'NaN', 'NaN'],
  ['temperature', 'Infinity', 'Infinity'],
  ['temperature', '-Infinity', '-Infinity'],
  ['weight_kg', 'NaN', 'NaN'],
  ['weight_kg', '-Infinity', '-Infinity'],
  ['weight_kg', '0.1', Math.fround(0.1)],
  ['weight_kg', 3.4028235e38, 3.4028234663852886e38],
  ['weight_kg', '-3.4028235e38', -3.4028234663852886e38],
  ['weight_kg', '1e-45', Math.fround(1e-45)],
  ['price', '19.990', '19.99'],
  ['price', '-000.50', '-0.5'],
  ['price', '1e3', '1000'],
  ['price', '1.5e-3', '0.0015'],
  ['price', 0.1, '0.1'],
  ['price', 1e21, '1000000000000000000000'],
  ['price', '123456789012345678901234567890.123456789', '123456789012345678901234567890.123456789'],
  ['price', '-0.0', '0'],
  // What the API writes for a numeric that is no number (§4), read back (columnValue then refuses the
  // infinities in a numeric(p,s) such as this one, as PostgreSQL does).
  ['price', 'NaN', 'NaN'],
  ['price', 'Infinity', 'Infinity'],
  ['price', '-Infinity', '-Infinity'],
  ['is_deleted', true, true],
  ['is_deleted', 'true', true],
  ['is_deleted', '1', true],
  ['is_deleted', 1, true],
  ['is_deleted', false, false],
  ['is_deleted', 'false', false],
  ['is_deleted', '0', false],
  ['date_created', '2024-01-01', '2024-01-01T00:00:00'],
  ['date_created', '2024-01-01T10:20', '2024-01-01T10:20:00'],
  ['date_created', '2024-01-01 10:20:30', '2024-01-01T10:20:30'],
  ['date_created', '2024-02-29T23:59:59.500000', '2024-02-29T23:59:59.5'],
  ['date_created', '2000-02-29T00:00:00.000', '2000-02-29T00:00:00'],
  ['date_created', '2024-01-01T10:20:30.123456', '2024-01-01T10:20:30.123456'],
  ['departed_at', '2024-01-01T10:00:00Z', '2024-01-01T10:00:00+00:00'],
  ['departed_at', '2024-01-01T10:00:00+02:00', '2024-01-01T08:00:00+00:00'],
  ['departed_at', '2024-01-01T01:00:00+0230', '2023-12-31T22:30:00+00:00'],
  ['departed_at', '2024-12-31T23:30:00-01', '2025-01-01T00:30:00+00:00'],
  ['departed_at', '2024-01-01T10:00:00', '2024-01-01T10:00:00+00:00'],
  ['departed_at', '2024-01-01T10:00:00.250Z', '2024-01-01T10:00:00.25+00:00'],
  ['departed_at', '2024-01-01', '2024-01-01T00:00:00+00:00'],
  ['shipped_on', '2024-02-29', '2024-02-29'],
  // ±infinity as the API writes it for every date and timestamp type (§4), read back.
  ['date_created', 'infinity', 'infinity'],
  ['date_created', '-infinity', '-infinity'],
  ['departed_at', 'infinity', 'infinity'],
  ['departed_at', '-infinity', '-infinity'],
  ['shipped_on', 'infinity', 'infinity'],
  ['shipped_on', '-infinity', '-infinity'],
  ['pickup_time', '08:30', '08:30:00'],
  ['pickup_time', '23:59:59.999999', '23:59:59.999999'],
  ['pickup_time', '00:00:00.100', '00:00:00.1'],
  ['manifest', { b: 1, a: [true, null] }, '{"a":[true,null],"b":1}'],
  ['manifest', { long: 1, z: 2 }, '{"z":2,"long":1}'],
  ['manifest', 'text', '"text"'],
  ['manifest', 1.5, '1.5'],
  ['manifest', [], '[]'],
  ['manifest', false, 'false'],
];

test('values are coerced to the canonical form of their field type', () => {
  for (const [name, raw, expected] of ACCEPTED) {
    assert.equal(coerceValue(column(name), raw), expected, `${name} ← ${JSON.stringify(raw)}`);
  }
});

test('a decimal is taken back in the plain text it is answered in, however far its exponent went', () => {
  for (const raw of ['1e1000', '-1e-1000', `${'9'.repeat(1000)}e1000`, `-0.${'1'.repeat(998)}e-1000`]) {
    const plain = coerceValue(column('price'), raw);
    assert.type(plain, 'string', raw.slice(0, 20));
    assert.equal(coerceValue(column('price'), plain), plain, raw.slice(0, 20));
  }
});

/** [field, raw input, why] */
const REFUSED: ReadonlyArray<readonly [string, unknown, string]> = [
  ['id', 'not-a-uuid', 'not a uuid'],
  ['id', '0190a1b2000070008000000000000001', 'uuid without hyphens'],
  ['id', '{0190a1b2-0000-7000-8000-000000000001}', 'uuid in braces'],
  ['id', '0190a1b2-0000-7000-8000-00000000000g', 'non-hex digit'],
  ['id', ' 0190a1b2-0000-7000-8000-000000000001', 'leading space'],
  ['id', 42, 'a number'],
  ['id', '', 'empty'],
  ['description', true, 'a boolean for text'],
  ['description', 'nul\u0000byte', 'NUL, which PostgreSQL text cannot hold'],
  ['description', { a: 1 }, 'an object'],
  ['description', ['a'], 'an array'],
  ['crate_count', '2147483648', 'int4 overflow'],
  ['crate_count', '-2147483649', 'int4 underflow'],
  ['crate_count', 2147483648, 'int4 overflow as a number'],
  ['crate_count', '1.5', 'a fraction'],
  ['crate_count', 1.5, 'a fractional number'],
  ['crate_count', '1e3', 'exponent text'],
  ['crate_count', '  12 ', 'surrounding spaces'],
  ['crate_count', '', 'empty'],
  ['crate_count', '0x10', 'hex'],
  ['crate_count', '١٢', 'non-ASCII digits'],
  ['crate_count', Number.NaN, 'NaN'],
  ['crate_count', true, 'a boolean'],
  ['pallets', '32768', 'int2 overflow'],
  ['pallets', -32769, 'int2 underflow'],
  ['serial_number', '9223372036854775808', 'int8 overflow'],
  ['serial_number', '-9223372036854775809', 'int8 underflow'],
  ['serial_number', 2 ** 53 + 2, 'a number beyond 2^53 (digits may be lost already)'],
  ['serial_number', '1'.repeat(40), 'far too many digits'],
  ['serial_number', 1.5, 'a fraction'],
  ['temperature', '1e400', 'overflows a double'],
  ['temperature', '-1e400', 'overflows a double'],
  ['temperature', '1e-400', 'underflows a double'],
  ['temperature', Number.POSITIVE_INFINITY, 'Infinity as a number (no JSON number is)'],
  ['temperature', Number.NaN, 'NaN as a number (no JSON number is)'],
  ['temperature', 'nan', 'another spelling than the one the API writes'],
  ['temperature', 'inf', 'another spelling than the one the API writes'],
  ['temperature', '+Infinity', 'another spelling than the one the API writes'],
  ['temperature', ' NaN', 'leading space'],
  ['temperature', '', 'empty'],
  ['temperature', ' 1', 'leading space'],
  ['temperature', '1,5', 'decimal comma'],
  ['weight_kg', '1e39', 'overflows real'],
  ['weight_kg', '3.4028236e38', 'rounds to infinity as a real'],
  ['weight_kg', '1e-50', 'underflows real'],
  ['price', 'nan', 'another spelling than the one the API writes'],
  ['price', 'inf', 'another spelling than the one the API writes'],
  ['price', '+Infinity', 'another spelling than the one the API writes'],
  ['price', Number.NaN, 'NaN as a number (no JSON number is)'],
  ['price', '1e1001', 'exponent PostgreSQL numeric cannot hold'],
  ['price', '1'.repeat(2049), 'over the length bound'],
  ['price', `${'1'.repeat(1049)}e1000`, 'plain text over the length bound'],
  ['price', '', 'empty'],
  ['price', '.', 'a lone point'],
  ['price', '1.2.3', 'two points'],
  ['price', Number.POSITIVE_INFINITY, 'Infinity'],
  ['is_deleted', 'yes', 'yes'],
  ['is_deleted', 'TRUE', 'upper case'],
  ['is_deleted', 2, 'a number other than 0 and 1'],
  ['is_deleted', '', 'empty'],
  ['date_created', '2024-02-30', 'February 30th'],
  ['date_created', '2023-02-29', 'not a leap year'],
  ['date_created', '1900-02-29', 'century, not a leap year'],
  ['date_created', '2024-13-01', 'month 13'],
  ['date_created', '2024-01-01T24:00:00', 'hour 24'],
  ['date_created', '2024-01-01T23:60:00', 'minute 60'],
  ['date_created', '2024-01-01T23:59:60', 'leap second'],
  ['date_created', '2024-01-01T10:00:00Z', 'an offset on a timestamp without zone'],
  ['date_created', '2024-01-01T10:00:00.1234567', 'beyond microseconds'],
  ['date_created', '0000-01-01', 'year zero'],
  ['date_created', '24-01-01', 'two-digit year'],
  ['date_created', '2024-1-1', 'unpadded'],
  ['date_created', 'yesterday', 'words'],
  ['date_created', 1704067200000, 'epoch milliseconds'],
  ['departed_at', '2024-01-01T10:00:00+16:00', 'offset beyond ±15:59'],
  ['departed_at', '2024-01-01T10:00:00+02:60', 'offset minutes 60'],
  ['departed_at', '0001-01-01T00:00:00+01:00', 'before year 1 in UTC'],
  ['departed_at', '9999-12-31T23:00:00-02:00', 'after year 9999 in UTC'],
  ['shipped_on', '2024-01-01T00:00:00', 'a timestamp for a date'],
  ['shipped_on', '2024-04-31', 'April 31st'],
  ['shipped_on', 'Infinity', 'another spelling than the one the API writes'],
  ['shipped_on', '+infinity', 'another spelling than the one the API writes'],
  ['date_created', 'INFINITY', 'another spelling than the one the API writes'],
  ['departed_at', ' infinity', 'leading space'],
  ['departed_at', Number.POSITIVE_INFINITY, 'a number'],
  ['pickup_time', 'infinity', 'time has no infinity'],
  ['pickup_time', '24:00:00', 'hour 24'],
  ['pickup_time', '8:30', 'unpadded hour'],
  ['pickup_time', '08:30:00Z', 'a zone'],
  ['manifest', undefined, 'not JSON'],
  ['manifest', { a: 'nul\u0000' }, 'NUL, which jsonb refuses'],
  ['tags', '{a}', 'a column of a type we do not model'],
];

test('values that do not fit their field type are refused as INVALID_QUERY naming the field', () => {
  for (const [name, raw, why] of REFUSED) {
    try {
      const value = coerceValue(column(name), raw);
      assert.unreachable(`${name} ← ${why}: accepted as ${JSON.stringify(value)}`);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      assert.is(error.code, 'INVALID_QUERY', why);
      assert.is(error.extensions.field, name, why);
      assert.is(error.extensions.reason, 'INVALID_VALUE', why);
    }
  }
});

test('the message shows a scalar as a value and names an object or an array', () => {
  const messageOf = (raw: unknown) => {
    try {
      coerceValue(column('crate_count'), raw);
    } catch (error) {
      return (error as DomainError).message;
    }
    return assert.unreachable('accepted');
  };
  assert.is(messageOf('many'), 'Invalid value "many" for field "crate_count" (integer).');
  assert.is(messageOf({ id: 5 }), 'Invalid value for field "crate_count" (integer): an object.');
  assert.is(messageOf([1]), 'Invalid value for field "crate_count" (integer): an array.');
});

test('json nested beyond 64 levels is refused, never a stack overflow', () => {
  let deep: unknown = 1;
  for (let level = 0; level < 100_000; level++) deep = [deep];
  assert.throws(
    () => coerceValue(column('manifest'), deep),
    (error: DomainError) => error.code === 'INVALID_QUERY',
  );
});

test('an error message never echoes a long input whole', () => {
  const huge = `${'9'.repeat(10_000)}x`;
  try {
    coerceValue(column('crate_count'), huge);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, DomainError);
    assert.ok((error as DomainError).message.length < 200);
  }
});

test('a malformed key from a URL is null (answered 404), a valid one is canonical', () => {
  assert.is(coerceKey(column('id'), 'nope'), null);
  assert.is(
    coerceKey(column('id'), '0190A1B2-0000-7000-8000-000000000001'),
    '0190a1b2-0000-7000-8000-000000000001',
  );
  assert.is(coerceKey(column('crate_count'), '12'), 12);
  assert.is(coerceKey(column('crate_count'), '99999999999'), null);
  assert.is(coerceKey(column('tags'), '{a}'), null);
});

test.run();
