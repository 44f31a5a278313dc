import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { presetsOf, type WriteGrant } from '../../../src/domain/permissions/write-grants.ts';
import { MATCH_NONE } from '../../../src/domain/query/filter.ts';
import { CARGO_USERS } from '../../support/cargos-schema.ts';
import { admin, anonymous, grantsFor, OTHER_ROLE, operator, permission, roleless } from './write-fixture.ts';

const list = (grants: WriteGrant[] | 'all'): WriteGrant[] => {
  assert.ok(grants !== 'all', 'expected grants, got all');
  return grants as WriteGrant[];
};

test('admins may write everything, with or without permissions', () => {
  for (const action of ['create', 'update', 'delete'] as const) {
    assert.is(grantsFor(admin, [], action), 'all');
  }
});

test("only the caller's role's permissions for this action and collection count", () => {
  const permissions = [
    permission({ action: 'read' }),
    permission({ action: 'update' }),
    permission({ collection: 'trucks' }),
    permission({ role: OTHER_ROLE }),
    permission({ role: null }),
  ];
  assert.equal(grantsFor(operator, permissions, 'create'), []);
  assert.is(list(grantsFor(operator, permissions, 'update')).length, 1);
});

test('public permissions apply to anonymous and role-less callers, never to a role', () => {
  const permissions = [permission({ role: null, fields: ['description'] })];
  for (const caller of [anonymous, roleless]) {
    const [grant] = list(grantsFor(caller, permissions));
    assert.equal(grant?.fields, new Set(['description']));
  }
  assert.equal(grantsFor(operator, permissions), []);
});

test('each usable permission is one grant, in permission order', () => {
  const grants = list(
    grantsFor(operator, [
      permission({ fields: ['description'], permissions: { is_deleted: { _eq: false } } }),
      permission({ fields: ['*'], validation: { temperature: { _lt: 0 } } }),
    ]),
  );
  assert.is(grants.length, 2);
  assert.equal(grants[0]?.rows, { kind: 'condition', field: 'is_deleted', operator: '_eq', value: false });
  assert.is(grants[0]?.validation, null);
  assert.is(grants[1]?.fields, 'all');
  assert.is(grants[1]?.rows, null);
  assert.equal(grants[1]?.validation, { kind: 'condition', field: 'temperature', operator: '_lt', value: 0 });
});

test('fields: null and [] make a permission useless; unknown names are ignored; * is all', () => {
  assert.equal(grantsFor(operator, [permission({ fields: null }), permission({ fields: [] })]), []);
  assert.equal(grantsFor(operator, [permission({ fields: ['colour'] })]), []);
  const [grant] = list(
    grantsFor(operator, [permission({ fields: ['colour', 'description', 'temperature'] })]),
  );
  assert.equal(grant?.fields, new Set(['description', 'temperature']));
  assert.is(list(grantsFor(operator, [permission({ fields: ['description', '*'] })]))[0]?.fields, 'all');
});

test('delete looks only at the row filter: fields, validation and presets do not matter', () => {
  const [grant] = list(
    grantsFor(
      operator,
      [
        permission({
          action: 'delete',
          fields: null,
          validation: { colour: { _eq: 1 } },
          presets: { colour: 1 },
        }),
      ],
      'delete',
    ),
  );
  assert.equal(grant?.fields, 'all');
  assert.is(grant?.validation, null);
  assert.equal(grant?.presets, {});
});

test('a row or validation filter that no longer fits the collection makes only that grant unusable', () => {
  const grants = list(
    grantsFor(operator, [
      permission({ permissions: { colour: { _eq: 'red' } } }),
      permission({ validation: { temperature: { _gt: 'warm' } } }),
      permission({ fields: ['description'] }),
    ]),
  );
  assert.is(grants.length, 1);
  assert.equal(grants[0]?.fields, new Set(['description']));
});

test('$CURRENT_USER in a row filter is bound to the caller', () => {
  const permissions = [
    permission({ action: 'update', permissions: { user_created: { _eq: '$CURRENT_USER' } } }),
  ];
  const [grant] = list(grantsFor(operator, permissions, 'update'));
  assert.equal(grant?.rows, {
    kind: 'condition',
    field: 'user_created',
    operator: '_eq',
    value: CARGO_USERS.ada,
  });
  // the public caller has no user: the filter matches nothing, failing closed
  const [publicGrant] = list(grantsFor(anonymous, [permission({ ...permissions[0], role: null })], 'update'));
  assert.equal(publicGrant?.rows, MATCH_NONE);
});

test('presets are coerced to canonical values like a payload', () => {
  const [grant] = list(
    grantsFor(operator, [
      permission({
        presets: { is_deleted: 'false', temperature: '4', manifest: { b: 1, a: 2 }, description: null },
      }),
    ]),
  );
  assert.equal(grant?.presets, {
    is_deleted: false,
    temperature: 4,
    manifest: '{"a":2,"b":1}',
    description: null,
  });
});

test('dynamic presets are resolved for the caller, coerced to the field; unbindable ones preset null', () => {
  const presets = { description: '$CURRENT_USER', manifest: '$CURRENT_ROLE' };
  const [grant] = list(grantsFor(operator, [permission({ presets })]));
  assert.equal(grant?.presets, {
    description: CARGO_USERS.ada,
    manifest: JSON.stringify(operator.role),
  });
  const publicPermission = permission({ role: null, presets: { description: '$CURRENT_USER' } });
  const [publicGrant] = list(grantsFor(anonymous, [publicPermission]));
  assert.equal(publicGrant?.presets, { description: null });
});

test('unusable presets fail closed: unknown field, wrong type, null into not-null, bad dynamic value', () => {
  for (const presets of [
    '{"colour": "red"}',
    '{"__proto__": "x"}',
    '{"temperature": "warm"}',
    '{"is_deleted": null}',
    `{"code": "${'x'.repeat(33)}"}`,
    '{"code": "$CURRENT_USER"}',
    '{"description": "$NOW(soon)"}',
    '{"tags": ["a"]}',
    '["description"]',
  ]) {
    const raw = JSON.parse(presets) as Record<string, unknown>;
    assert.equal(grantsFor(operator, [permission({ presets: raw })]), [], presets);
  }
  // the others keep working
  assert.is(list(grantsFor(operator, [permission({ presets: { colour: 1 } }), permission({})])).length, 1);
});

test('presets for auto fields that reach a grant (stored before they were refused) are dropped, like in a payload', () => {
  const [grant] = list(
    grantsFor(operator, [permission({ presets: { date_created: '2000-01-01T00:00:00' } })]),
  );
  assert.equal(grant?.presets, {});
});

test('presetsOf merges every grant, a later one overriding an earlier one', () => {
  const grants = list(
    grantsFor(operator, [
      permission({ presets: { is_deleted: false, description: 'first' } }),
      permission({ presets: { description: 'second', temperature: 4 } }),
      permission({}),
    ]),
  );
  assert.equal(presetsOf(grants), { is_deleted: false, description: 'second', temperature: 4 });
  assert.equal(presetsOf([]), {});
  assert.equal(presetsOf('all'), {});
});

test.run();
