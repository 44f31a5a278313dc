import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/domain/errors.ts';
import { MAX_JSON_KEY_BYTES, MAX_JSON_PATH_DEPTH } from '../../../src/domain/query/json-path.ts';
import { parseItemQuery, type RawItemQuery } from '../../../src/domain/query/parse-item-query.ts';
import { cargosSchema } from '../../support/cargos-schema.ts';

const parse = (fields: unknown) =>
  parseItemQuery({ fields } as RawItemQuery, cargosSchema, { limitDefault: 100, limitMax: 1000 }).fields;

function refused(fields: unknown, reason: string) {
  const label = JSON.stringify(fields);
  try {
    assert.unreachable(`${label} parsed as ${JSON.stringify(parse(fields))}`);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.code, 'INVALID_QUERY', label);
    assert.is(error.extensions.reason, reason, label);
  }
}

test('json(field, path): keys by dots, indexes in brackets, answered as Directus names them', () => {
  const table: ReadonlyArray<readonly [string, string[], string]> = [
    ['json(manifest, color)', ['color'], 'manifest_color_json'],
    ['json(manifest, settings.priority)', ['settings', 'priority'], 'manifest_settings_priority_json'],
    ['json(manifest, items[0].name)', ['items', '0', 'name'], 'manifest_items_0_name_json'],
    ['json(manifest, tags[0])', ['tags', '0'], 'manifest_tags_0_json'],
    ['json(manifest, [0])', ['0'], 'manifest_0_json'],
    ['json(manifest, [0][12].a)', ['0', '12', 'a'], 'manifest_0_12_a_json'],
    ['json(  manifest ,  données.prénom  )', ['données', 'prénom'], 'manifest_données_prénom_json'],
    ['json(manifest, a.b.c.d.e.f.g.h.i.j)', [...'abcdefghij'], 'manifest_a_b_c_d_e_f_g_h_i_j_json'],
  ];
  for (const [entry, path, key] of table) {
    assert.equal(parse(entry), [{ field: 'manifest', path, key }], entry);
  }
});

test('json() beside other fields and *: its comma is no separator; the same one twice is kept once', () => {
  const color = { field: 'manifest', path: ['color'], key: 'manifest_color_json' };
  assert.equal(parse('id,json(manifest, color),code'), ['id', color, 'code']);
  assert.equal(parse(['*', 'json(manifest, color)']), ['*', color]);
  assert.equal(parse('json(manifest, color),json(manifest,color)'), [color]);
  assert.equal(parse('json(manifest, a.0),json(manifest, a[0])'), [
    { field: 'manifest', path: ['a', '0'], key: 'manifest_a_0_json' },
  ]);
});

test('json() on a field that is not json, unknown or relational is refused, naming it', () => {
  refused('json(description, color)', 'INVALID_VALUE');
  refused('json(id, color)', 'INVALID_VALUE');
  refused('json(nope, color)', 'UNKNOWN_FIELD');
  refused('json(owner.manifest, color)', 'UNKNOWN_FIELD');
  refused('json(__proto__, color)', 'UNKNOWN_FIELD');
});

test('json() syntax: both arguments, balanced parentheses', () => {
  for (const fields of [
    'json()',
    'json(   )',
    'json(manifest)',
    'json(, color)',
    'json(manifest,)',
    'json(manifest, color',
    'json(manifest, color))',
    'id,json(manifest, color',
    'json(manifest, (color))',
    'jsonb(manifest, color)',
  ]) {
    refused(fields, fields.startsWith('jsonb') ? 'UNKNOWN_FIELD' : 'INVALID_VALUE');
  }
});

test('json() paths: wildcards, predicates, roots, empty steps and SQL are refused', () => {
  for (const path of [
    'items[]',
    '[]',
    'items[*].name',
    'items.*',
    '*',
    'items[?(@.price > 10)]',
    '@.name',
    '$.name',
    'name$value',
    'a..b',
    '.a',
    'a.',
    'items[-1]',
    'items[0',
    'items]0[',
    "name') OR 1=1--",
    "data'::text",
    'items name',
    'items\nOR 1=1',
    'color--',
    'a;b',
    'a/b',
    'a-b',
    '"a"',
  ]) {
    refused([`json(manifest, ${path})`], 'INVALID_VALUE');
  }
});

test(`json() paths deeper than ${MAX_JSON_PATH_DEPTH} steps are refused`, () => {
  refused('json(manifest, a.b.c.d.e.f.g.h.i.j.k)', 'MAX_DEPTH');
  refused('json(manifest, a[0].b[1].c[2].d[3].e[4].f[5])', 'MAX_DEPTH');
});

test(`json() keys longer than ${MAX_JSON_KEY_BYTES} UTF-8 bytes are refused: PostgreSQL would cut them`, () => {
  const longest = `json(manifest, ${'a'.repeat(MAX_JSON_KEY_BYTES - 'manifest__json'.length)})`;
  assert.is((parse(longest) as ReadonlyArray<{ key: string }>)[0]!.key.length, MAX_JSON_KEY_BYTES);
  refused(`json(manifest, ${'a'.repeat(MAX_JSON_KEY_BYTES - 'manifest__json'.length + 1)})`, 'INVALID_VALUE');
  refused(`json(manifest, ${'é'.repeat(25)})`, 'INVALID_VALUE');
});

test('json() keys that collide with a field or with another json() are refused', () => {
  const withColumn = {
    ...cargosSchema,
    fields: [...cargosSchema.fields, { ...cargosSchema.fields[3]!, name: 'manifest_color_json' }],
  };
  try {
    parseItemQuery({ fields: 'json(manifest, color)' }, withColumn, { limitDefault: 1, limitMax: 1 });
    assert.unreachable('a key naming a column was accepted');
  } catch (error) {
    assert.instance(error, DomainError);
  }
  refused('json(manifest, a_b),json(manifest, a.b)', 'INVALID_VALUE');
});

test.run();
