import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Accountability } from '../../../src/domain/accountability.ts';
import type { Permission } from '../../../src/domain/permissions/permission.ts';
import {
  authorizeCreate,
  authorizeDelete,
  authorizeUpdate,
  type WriteAction,
} from '../../../src/domain/permissions/write-grants.ts';
import { CARGO_IDS, CARGO_USERS } from '../../support/cargos-schema.ts';
import { expectError } from '../items/domain-error.ts';
import { admin, anonymous, grantsFor, operator, permission } from './write-fixture.ts';

const live = { is_deleted: { _eq: false } };

/** The Operator: creates and updates only non-deleted cargos, and only description/temperature. */
const operatorPermissions = (action: WriteAction, extra: Partial<Permission> = {}) => [
  permission({ action, permissions: live, fields: ['description', 'temperature'], ...extra }),
];
const grants = (action: WriteAction, permissions: Permission[], caller: Accountability = operator) =>
  grantsFor(caller, permissions, action);

const stored = (values: Record<string, string | number | boolean | null>) => ({
  id: CARGO_IDS.a,
  is_deleted: false,
  description: 'frozen fish',
  temperature: -18,
  user_created: CARGO_USERS.ada,
  ...values,
});

test('admins may create, update and delete anything', () => {
  authorizeCreate('all', { is_deleted: true, tags: 'x' }, ['is_deleted', 'tags']);
  authorizeUpdate('all', stored({ is_deleted: true }), stored({ is_deleted: true }), ['id']);
  authorizeDelete('all', stored({ is_deleted: true }));
  assert.is(grants('create', [], admin), 'all');
});

test('no grant at all is FORBIDDEN without a field', () => {
  expectError(() => authorizeCreate([], stored({}), ['description']), 'FORBIDDEN');
  expectError(() => authorizeUpdate([], stored({}), stored({}), ['description']), 'FORBIDDEN');
  expectError(() => authorizeDelete([], stored({})), 'FORBIDDEN');
});

test('create: allowed when the payload fields are granted and the new item is inside the row filter', () => {
  authorizeCreate(grants('create', operatorPermissions('create')), stored({}), [
    'description',
    'temperature',
  ]);
  authorizeCreate(grants('create', operatorPermissions('create')), stored({}), []);
});

test('create: a payload field outside the grant is FORBIDDEN naming the first one', () => {
  const granted = grants('create', operatorPermissions('create'));
  expectError(
    () => authorizeCreate(granted, stored({}), ['description', 'code', 'price']),
    'FORBIDDEN',
    'code',
  );
});

test('create: a new item outside the row filter is FORBIDDEN', () => {
  const granted = grants('create', operatorPermissions('create'));
  expectError(() => authorizeCreate(granted, stored({ is_deleted: true }), ['description']), 'FORBIDDEN');
});

test('create: a field missing from the item reads as null, so check the item as stored', () => {
  const granted = grants('create', operatorPermissions('create'));
  const { is_deleted: _omitted, ...beforeDefaults } = stored({});
  expectError(() => authorizeCreate(granted, beforeDefaults, ['description']), 'FORBIDDEN');
});

test('create: a failing validation is FAILED_VALIDATION naming the first failing condition', () => {
  const validation = { _and: [{ description: { _nnull: true } }, { temperature: { _lt: 0 } }] };
  const granted = grants('create', operatorPermissions('create', { validation }));
  authorizeCreate(granted, stored({ temperature: -5 }), ['temperature']);
  const error = expectError(
    () => authorizeCreate(granted, stored({ temperature: 4 }), ['temperature']),
    'FAILED_VALIDATION',
    'temperature',
  );
  assert.match(error.message, 'temperature');
  expectError(
    () => authorizeCreate(granted, stored({ description: null, temperature: 4 }), ['temperature']),
    'FAILED_VALIDATION',
    'description',
  );
});

test('a validation OR names the first field of its members when all fail', () => {
  const validation = { _or: [{ temperature: { _lt: 0 } }, { description: { _eq: 'ambient' } }] };
  const granted = grants('create', operatorPermissions('create', { validation }));
  authorizeCreate(granted, stored({ temperature: 20, description: 'ambient' }), []);
  expectError(
    () => authorizeCreate(granted, stored({ temperature: 20 }), []),
    'FAILED_VALIDATION',
    'temperature',
  );
});

test('a validation no item can satisfy is FAILED_VALIDATION without a field', () => {
  // the public caller's $CURRENT_USER binds to nothing
  const validation = { user_created: { _eq: '$CURRENT_USER' } };
  const granted = grants('create', [permission({ role: null, validation })], anonymous);
  expectError(() => authorizeCreate(granted, stored({}), []), 'FAILED_VALIDATION');
});

test('several grants combine with OR: one that fits is enough', () => {
  const granted = grants('create', [
    ...operatorPermissions('create'),
    permission({ permissions: { is_deleted: { _eq: true } }, fields: ['*'] }),
  ]);
  authorizeCreate(granted, stored({ is_deleted: true }), ['code']);
  authorizeCreate(granted, stored({}), ['temperature']);
  expectError(() => authorizeCreate(granted, stored({}), ['code']), 'FORBIDDEN', 'code');
});

test('refusals prefer FAILED_VALIDATION, then a FORBIDDEN field, then plain FORBIDDEN', () => {
  const failsValidation = permission({
    permissions: live,
    fields: ['temperature'],
    validation: { temperature: { _lt: 0 } },
  });
  const failsFields = permission({ permissions: live, fields: ['description'] });
  const failsRows = permission({ permissions: { is_deleted: { _eq: true } }, fields: ['*'] });
  const item = stored({ temperature: 4 });
  for (const order of [
    [failsRows, failsFields, failsValidation],
    [failsValidation, failsFields, failsRows],
  ]) {
    expectError(
      () => authorizeCreate(grants('create', order), item, ['temperature']),
      'FAILED_VALIDATION',
      'temperature',
    );
  }
  expectError(
    () => authorizeCreate(grants('create', [failsRows, failsFields]), item, ['temperature']),
    'FORBIDDEN',
    'temperature',
  );
  expectError(() => authorizeCreate(grants('create', [failsRows]), item, ['temperature']), 'FORBIDDEN');
});

test('update: the row filter is matched against the existing row, not the merged one', () => {
  const granted = grants('update', operatorPermissions('update'));
  authorizeUpdate(granted, stored({}), stored({ temperature: 3 }), ['temperature']);
  // an archived cargo cannot be changed, not even back to live
  expectError(
    () =>
      authorizeUpdate(granted, stored({ is_deleted: true }), stored({ is_deleted: false }), ['temperature']),
    'FORBIDDEN',
  );
});

test('update: validation holds on the merged row', () => {
  const granted = grants(
    'update',
    operatorPermissions('update', { validation: { temperature: { _lt: 0 } } }),
  );
  authorizeUpdate(granted, stored({ temperature: 5 }), stored({ temperature: -1 }), ['temperature']);
  expectError(
    () => authorizeUpdate(granted, stored({ temperature: -5 }), stored({ temperature: 1 }), ['temperature']),
    'FAILED_VALIDATION',
    'temperature',
  );
});

test('update: fields outside the grant are FORBIDDEN naming the first one', () => {
  const granted = grants('update', operatorPermissions('update'));
  expectError(
    () => authorizeUpdate(granted, stored({}), stored({ is_deleted: true }), ['temperature', 'is_deleted']),
    'FORBIDDEN',
    'is_deleted',
  );
});

test('$CURRENT_USER in a row filter: only the rows the caller created', () => {
  const own = [permission({ action: 'update', permissions: { user_created: { _eq: '$CURRENT_USER' } } })];
  const granted = grants('update', own);
  authorizeUpdate(granted, stored({}), stored({}), ['description']);
  expectError(
    () => authorizeUpdate(granted, stored({ user_created: CARGO_USERS.bob }), stored({}), ['description']),
    'FORBIDDEN',
  );
  const deletable = grants('delete', [permission({ ...own[0], action: 'delete' })]);
  authorizeDelete(deletable, stored({}));
  expectError(() => authorizeDelete(deletable, stored({ user_created: null })), 'FORBIDDEN');
});

test('delete: some grant must cover the existing row', () => {
  const granted = grants('delete', [
    permission({ action: 'delete', permissions: live, fields: null }),
    permission({ action: 'delete', permissions: { temperature: { _gt: 30 } } }),
  ]);
  authorizeDelete(granted, stored({}));
  authorizeDelete(granted, stored({ is_deleted: true, temperature: 40 }));
  expectError(() => authorizeDelete(granted, stored({ is_deleted: true })), 'FORBIDDEN');
});

test("json fields match whether the store gives canonical text or PostgreSQL's rendering", () => {
  const validation = { manifest: { _eq: { crates: 2, kind: 'fish' } } };
  const granted = grants('create', [permission({ validation })]);
  authorizeCreate(granted, stored({ manifest: '{"kind":"fish","crates":2}' }), []);
  authorizeCreate(granted, stored({ manifest: '{"kind": "fish", "crates": 2}' }), []);
  expectError(
    () => authorizeCreate(granted, stored({ manifest: '{"kind": "meat", "crates": 2}' }), []),
    'FAILED_VALIDATION',
    'manifest',
  );
  const deletable = grants('delete', [
    permission({ action: 'delete', permissions: { manifest: { _nnull: true } } }),
  ]);
  authorizeDelete(deletable, stored({ manifest: '[]' }));
});

test.run();
