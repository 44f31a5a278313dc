import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonbText, wireJson } from '../../../../src/adapters/persistence/memory/in-memory-wire-json.ts';
import type { FieldSchema } from '../../../../src/domain/schema/collection-schema.ts';

/* The layouts below are PostgreSQL's own (jsonb_out, json_agg), checked against PostgreSQL 15. */

const field = (type: FieldSchema['type'], rest: Partial<FieldSchema> = {}): FieldSchema => ({
  name: 'f',
  type,
  dbType: type,
  nullable: true,
  defaultValue: null,
  isPrimaryKey: false,
  isUnique: false,
  hasDefault: false,
  maxLength: null,
  ...rest,
});

test('jsonb text: a space after each separator, none inside strings', () => {
  assert.is(jsonbText('{"a":[1,{"c":null}],"b":1,"s":"x"}'), '{"a": [1, {"c": null}], "b": 1, "s": "x"}');
  assert.is(jsonbText('{"k":"a,b:\\"c\\\\"}'), '{"k": "a,b:\\"c\\\\"}');
  assert.is(jsonbText('[]'), '[]');
  assert.is(jsonbText('{}'), '{}');
  assert.is(jsonbText('"plain"'), '"plain"');
});

test('jsonb text: numbers in numeric notation, never an exponent', () => {
  assert.is(
    jsonbText('[1e-7,1e+21,-2.5e-8,1.5,-3]'),
    '[0.0000001, 1000000000000000000000, -0.000000025, 1.5, -3]',
  );
});

test('array columns as json_agg joins them; other values as valueJson', () => {
  const ints = field('array', {
    dbType: 'integer[]',
    element: { type: 'integer', dbType: 'integer', maxLength: null },
  });
  assert.is(wireJson(ints, '[1,null,3]'), '[1, null, 3]');
  assert.is(wireJson(ints, '[]'), '[]');
  assert.is(wireJson(field('bigInteger'), '9007199254740993'), '"9007199254740993"');
  assert.is(wireJson(field('json'), null), 'null');
});

test("a numeric that is no number is PostgreSQL's text, never padded to the column's scale", () => {
  const price = field('decimal', { dbType: 'numeric(12,2)' });
  assert.is(wireJson(price, 'NaN'), '"NaN"');
  assert.is(wireJson(price, '12345678901234567.5'), '"12345678901234567.50"');
  assert.is(wireJson(field('decimal', { dbType: 'numeric' }), '-Infinity'), '"-Infinity"');
  assert.is(wireJson(field('date'), '-infinity'), '"-infinity"');
});

test.run();
