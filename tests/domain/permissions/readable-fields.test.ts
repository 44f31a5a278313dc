import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Accountability, PUBLIC_ACCOUNTABILITY } from '../../../src/domain/accountability.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { combineReadRule } from '../../../src/domain/permissions/combine-read-rule.ts';
import type { ReadRule } from '../../../src/domain/permissions/read-rule.ts';
import {
  allowedFields,
  assertFieldsQueryable,
  assertFilterQueryable,
  projectFields,
  queryableFields,
} from '../../../src/domain/permissions/readable-fields.ts';
import { and, CARGOS, eq, or } from './fixtures.ts';

const member: Accountability = { user: 'u1', role: 'r1', admin: false, session: null };
const published = eq('is_deleted', false);
const mine = eq('owner', 'u1');

/** id and description everywhere; temperature only on the caller's own rows. */
const rule: ReadRule = combineReadRule(
  [
    { rows: published, fields: ['id', 'description'] },
    { rows: mine, fields: ['id', 'description', 'temperature'] },
  ],
  CARGOS,
)!;

function refusedOn(attempt: () => unknown, code: string, field: string) {
  try {
    attempt();
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, code);
    if (code === 'FORBIDDEN') assert.is((error as DomainError).extensions.field, field);
    return;
  }
  assert.unreachable(`expected ${code} on ${field}`);
}

test('allowed fields are every field readable on some row, in collection order', () => {
  assert.equal(allowedFields(rule), ['id', 'description', 'temperature']);
});

test('* narrows silently to the allowed fields, each with its condition', () => {
  assert.equal(projectFields(member, rule, '*'), [
    { field: 'id', visibleWhen: null },
    { field: 'description', visibleWhen: null },
    { field: 'temperature', visibleWhen: mine },
  ]);
});

test('explicitly requested fields come back in the order asked, once each', () => {
  assert.equal(projectFields(member, rule, ['temperature', 'id', 'temperature']), [
    { field: 'temperature', visibleWhen: mine },
    { field: 'id', visibleWhen: null },
  ]);
});

test('json(field, path) is the field as permissions go: its mask, and FORBIDDEN where the field is', () => {
  const json = (field: string) => ({ field, path: ['a', '0'], key: `${field}_a_0_json` });
  assert.equal(projectFields(member, rule, ['id', json('temperature')]), [
    { field: 'id', visibleWhen: null },
    { field: 'temperature', visibleWhen: mine, json: { path: ['a', '0'], key: 'temperature_a_0_json' } },
  ]);
  assert.equal(projectFields(member, rule, ['*', json('description')]).at(-1), {
    field: 'description',
    visibleWhen: null,
    json: { path: ['a', '0'], key: 'description_a_0_json' },
  });
  refusedOn(() => projectFields(member, rule, [json('code')]), 'FORBIDDEN', 'code');
  refusedOn(() => projectFields(member, rule, ['*', json('code')]), 'FORBIDDEN', 'code');
  refusedOn(() => projectFields(PUBLIC_ACCOUNTABILITY, rule, [json('code')]), 'UNAUTHENTICATED', 'code');
});

test('an explicitly requested field the caller may not read is FORBIDDEN, naming it', () => {
  refusedOn(() => projectFields(member, rule, ['id', 'owner']), 'FORBIDDEN', 'owner');
});

test('the anonymous caller is asked to log in instead', () => {
  refusedOn(() => projectFields(PUBLIC_ACCOUNTABILITY, rule, ['owner']), 'UNAUTHENTICATED', 'owner');
});

test('fields readable on some rows only cannot be filtered, sorted or searched on', () => {
  assert.equal(queryableFields(rule), ['id', 'description']);
  assertFieldsQueryable(member, rule, ['id', 'description']);
  refusedOn(() => assertFieldsQueryable(member, rule, ['temperature']), 'FORBIDDEN', 'temperature');
});

test('filtering or sorting on a field the caller may not read is FORBIDDEN, naming it', () => {
  refusedOn(() => assertFieldsQueryable(member, rule, ['id', 'is_deleted']), 'FORBIDDEN', 'is_deleted');
});

test('every field of a nested filter is checked', () => {
  assertFilterQueryable(member, rule, and(eq('id', 'x'), or(eq('description', 'y'))));
  refusedOn(
    () => assertFilterQueryable(member, rule, and(eq('id', 'x'), or(eq('description', 'y'), mine))),
    'FORBIDDEN',
    'owner',
  );
});

test.run();
