import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  type Accountability,
  PUBLIC_ACCOUNTABILITY,
  SYSTEM_ACCOUNTABILITY,
} from '../../../src/domain/accountability.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { Permission, type PermissionProps } from '../../../src/domain/permissions/permission.ts';
import { readRuleFor } from '../../../src/domain/permissions/read-rule-for.ts';
import type { BoundFilterNode, FilterNode } from '../../../src/domain/query/filter.ts';
import { ALL_CARGO_FIELDS, CARGOS, eq, or } from './fixtures.ts';

const EDITOR = 'e0000000-0000-4000-8000-000000000000';
const OTHER = 'f0000000-0000-4000-8000-000000000000';

const editor: Accountability = { user: 'u1', role: EDITOR, admin: false, session: null };
const roleless: Accountability = { user: 'u2', role: null, admin: false, session: null };

let counter = 0;
function permission(props: Partial<PermissionProps>): Permission {
  return new Permission({
    id: `p${++counter}`,
    role: EDITOR,
    collection: 'cargos',
    action: 'read',
    permissions: null,
    validation: null,
    presets: null,
    fields: ['*'],
    ...props,
  });
}

/** Stands in for parseFilter: `{ "<field>": { "_eq": v } }` only, unknown fields are INVALID_QUERY. */
function parse(raw: Record<string, unknown>): FilterNode {
  const [[field, operand]] = Object.entries(raw) as [[string, { _eq: string | number | boolean }]];
  if (!CARGOS.fields.some((f) => f.name === field)) {
    throw new DomainError('INVALID_QUERY', `Unknown field "${field}".`);
  }
  return eq(field, operand._eq);
}

/** Stands in for bindDynamicValues: the current user is u1. */
function bind(node: FilterNode): BoundFilterNode {
  return node.kind === 'condition' && node.operator === '_eq' && node.value === '$CURRENT_USER'
    ? eq(node.field, 'u1')
    : (node as BoundFilterNode);
}

const ruleOf = (caller: Accountability, permissions: Permission[]) =>
  readRuleFor(caller, permissions, CARGOS, parse, bind);

test('admins read every row and field, with or without permissions', () => {
  const admin: Accountability = { ...editor, admin: true };
  for (const caller of [admin, SYSTEM_ACCOUNTABILITY]) {
    const rule = ruleOf(caller, []);
    assert.is(rule?.rows, null);
    assert.equal([...(rule?.fields.keys() ?? [])], ALL_CARGO_FIELDS);
    assert.ok([...(rule?.fields.values() ?? [])].every((condition) => condition === null));
  }
});

test('no read permission for the collection: nothing', () => {
  assert.is(ruleOf(editor, []), null);
  assert.is(ruleOf(PUBLIC_ACCOUNTABILITY, []), null);
});

test("only the caller's role's read permissions on this collection count", () => {
  const rule = ruleOf(editor, [
    permission({ fields: ['id'] }),
    permission({ role: OTHER, fields: ['description'] }),
    permission({ role: null, fields: ['temperature'] }),
    permission({ collection: 'other', fields: ['owner'] }),
    permission({ action: 'update', fields: ['is_deleted'] }),
  ]);
  assert.equal([...(rule?.fields.keys() ?? [])], ['id']);
});

test('anonymous callers get the public permissions', () => {
  const rule = ruleOf(PUBLIC_ACCOUNTABILITY, [
    permission({ role: null, fields: ['id', 'description'] }),
    permission({ fields: ['temperature'] }),
  ]);
  assert.equal([...(rule?.fields.keys() ?? [])], ['id', 'description']);
});

test('a user without a role gets the public permissions (docs/api.md §6), and nothing else', () => {
  const rule = ruleOf(roleless, [
    permission({ role: null, fields: ['description'] }),
    permission({ fields: ['temperature'] }),
  ]);
  assert.equal([...(rule?.fields.keys() ?? [])], ['description']);
});

test('a user with a role does not get the public permissions on top', () => {
  assert.is(ruleOf(editor, [permission({ role: null })]), null);
});

test('row filters are parsed and bound before they combine', () => {
  const rule = ruleOf(editor, [
    permission({ permissions: { owner: { _eq: '$CURRENT_USER' } }, fields: ['id', 'owner'] }),
    permission({ permissions: { is_deleted: { _eq: false } }, fields: ['id'] }),
  ]);
  assert.equal(rule?.rows, or(eq('owner', 'u1'), eq('is_deleted', false)));
  assert.equal(Object.fromEntries(rule?.fields ?? []), { id: null, owner: eq('owner', 'u1') });
});

test('a permission whose filter no longer fits the collection grants nothing; the others still do', () => {
  const stale = permission({ permissions: { weight: { _eq: 1 } }, fields: ['*'] });
  assert.is(ruleOf(editor, [stale]), null);
  const rule = ruleOf(editor, [stale, permission({ permissions: { owner: { _eq: 'x' } }, fields: ['id'] })]);
  assert.equal(rule?.rows, eq('owner', 'x'));
  assert.equal([...(rule?.fields.keys() ?? [])], ['id']);
});

test('other failures of the parser are not swallowed', () => {
  const failing = () => {
    throw new Error('parser bug');
  };
  assert.throws(
    () => readRuleFor(editor, [permission({ permissions: {} })], CARGOS, failing, bind),
    /parser bug/,
  );
});

test('a permission without a filter is not parsed at all', () => {
  const rule = readRuleFor(
    editor,
    [permission({ fields: ['id'] })],
    CARGOS,
    () => {
      throw new Error('a permission without a filter was parsed');
    },
    bind,
  );
  assert.is(rule?.rows, null);
});

test.run();
