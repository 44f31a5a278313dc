import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { combineReadRule } from '../../../src/domain/permissions/combine-read-rule.ts';
import type { ReadRule } from '../../../src/domain/permissions/read-rule.ts';
import {
  type BoundFilterNode as FilterNode,
  MATCH_ALL,
  MATCH_NONE,
} from '../../../src/domain/query/filter.ts';
import { ALL_CARGO_FIELDS, and, CARGOS, eq, or } from './fixtures.ts';

const mine = eq('owner', 'u1');
const published = eq('is_deleted', false);
const cold = eq('temperature', -20);

const fieldsOf = (rule: ReadRule | null) => (rule ? Object.fromEntries(rule.fields) : null);

test('no permission grants nothing', () => {
  assert.is(combineReadRule([], CARGOS), null);
});

test('permissions without fields grant nothing: null, empty, or only names the collection lacks', () => {
  for (const fields of [null, [], ['weight', 'colour']]) {
    assert.is(combineReadRule([{ rows: null, fields }], CARGOS), null, JSON.stringify(fields));
  }
});

test('one permission: its rows, its fields, no extra condition on any field', () => {
  const rule = combineReadRule([{ rows: mine, fields: ['id', 'description'] }], CARGOS);
  assert.equal(rule?.rows, mine);
  assert.equal(fieldsOf(rule), { id: null, description: null });
});

test('* grants every field of the collection, in collection order', () => {
  const rule = combineReadRule([{ rows: null, fields: ['*'] }], CARGOS);
  assert.is(rule?.rows, null);
  assert.equal([...(rule?.fields.keys() ?? [])], ALL_CARGO_FIELDS);
  assert.ok([...(rule?.fields.values() ?? [])].every((condition) => condition === null));
});

test('field names the collection lacks are ignored; listed order does not matter', () => {
  const rule = combineReadRule([{ rows: null, fields: ['temperature', 'weight', 'id'] }], CARGOS);
  assert.equal([...(rule?.fields.keys() ?? [])], ['id', 'temperature']);
});

test('several permissions combine with OR on rows', () => {
  const rule = combineReadRule(
    [
      { rows: mine, fields: ['id'] },
      { rows: published, fields: ['id'] },
    ],
    CARGOS,
  );
  assert.equal(rule?.rows, or(mine, published));
  assert.equal(fieldsOf(rule), { id: null });
});

test('a field is shown only on the rows of the permissions granting it', () => {
  const rule = combineReadRule(
    [
      { rows: published, fields: ['id', 'description'] },
      { rows: mine, fields: ['id', 'temperature', 'owner'] },
      { rows: cold, fields: ['temperature'] },
    ],
    CARGOS,
  );
  assert.equal(rule?.rows, or(published, mine, cold));
  assert.equal(fieldsOf(rule), {
    id: or(published, mine),
    description: published,
    temperature: or(mine, cold),
    owner: mine,
  });
});

test('a field every permission grants needs no condition beyond the rows', () => {
  const rule = combineReadRule(
    [
      { rows: published, fields: ['id', 'description'] },
      { rows: mine, fields: ['id', 'temperature'] },
    ],
    CARGOS,
  );
  assert.equal(fieldsOf(rule), { id: null, description: published, temperature: mine });
});

test('a permission on every row makes rows null and its fields unconditional', () => {
  const rule = combineReadRule(
    [
      { rows: null, fields: ['id'] },
      { rows: mine, fields: ['id', 'owner'] },
    ],
    CARGOS,
  );
  assert.is(rule?.rows, null);
  assert.equal(fieldsOf(rule), { id: null, owner: mine });
});

test('a filter matching every row counts as no filter', () => {
  const rule = combineReadRule([{ rows: MATCH_ALL, fields: ['id'] }], CARGOS);
  assert.is(rule?.rows, null);
});

test('a permission without fields does not make more rows visible', () => {
  const rule = combineReadRule(
    [
      { rows: mine, fields: ['id'] },
      { rows: null, fields: [] },
      { rows: published, fields: ['weight'] },
    ],
    CARGOS,
  );
  assert.equal(rule?.rows, mine);
  assert.equal(fieldsOf(rule), { id: null });
});

test('a permission matching no row is left out', () => {
  assert.is(combineReadRule([{ rows: MATCH_NONE, fields: ['*'] }], CARGOS), null);
  const rule = combineReadRule(
    [
      { rows: or(MATCH_NONE), fields: ['description'] },
      { rows: mine, fields: ['id'] },
    ],
    CARGOS,
  );
  assert.equal(rule?.rows, mine);
  assert.equal(fieldsOf(rule), { id: null });
});

test('the same filter twice is one node, whatever order its keys were written in', () => {
  const reordered: FilterNode = { value: 'u1', operator: '_eq', field: 'owner', kind: 'condition' };
  const rule = combineReadRule(
    [
      { rows: mine, fields: ['id'] },
      { rows: reordered, fields: ['description'] },
    ],
    CARGOS,
  );
  assert.equal(rule?.rows, mine);
  assert.equal(fieldsOf(rule), { id: null, description: null });
});

test('nested ORs are flattened and their duplicates dropped', () => {
  const rule = combineReadRule(
    [
      { rows: or(mine, published), fields: ['id'] },
      { rows: or(published, cold), fields: ['id'] },
    ],
    CARGOS,
  );
  assert.equal(rule?.rows, or(mine, published, cold));
});

test('AND filters are kept whole', () => {
  const both = and(mine, cold);
  const rule = combineReadRule(
    [
      { rows: both, fields: ['id'] },
      { rows: published, fields: ['id'] },
    ],
    CARGOS,
  );
  assert.equal(rule?.rows, or(both, published));
});

test.run();
