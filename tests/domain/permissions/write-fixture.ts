import type { Accountability } from '../../../src/domain/accountability.ts';
import { Permission, type PermissionProps } from '../../../src/domain/permissions/permission.ts';
import { type WriteAction, writeGrantsFor } from '../../../src/domain/permissions/write-grants.ts';
import { bindDynamicValues } from '../../../src/domain/query/bind-dynamic-values.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import { CARGO_USERS, cargosSchema } from '../../support/cargos-schema.ts';

export const OPERATOR_ROLE = '0190a1b2-0000-7000-8000-0000000000e1';
export const OTHER_ROLE = '0190a1b2-0000-7000-8000-0000000000e2';
export const NOW = new Date('2024-03-15T12:34:56.789Z');

export const operator: Accountability = {
  user: CARGO_USERS.ada,
  role: OPERATOR_ROLE,
  admin: false,
  session: null,
};
export const roleless: Accountability = { user: CARGO_USERS.bob, role: null, admin: false, session: null };
export const admin: Accountability = { user: CARGO_USERS.bob, role: OTHER_ROLE, admin: true, session: null };
export { PUBLIC_ACCOUNTABILITY as anonymous } from '../../../src/domain/accountability.ts';

let counter = 0;
/** A permission of the Operator role on cargos, granting everything unless told otherwise. */
export function permission(props: Partial<PermissionProps>): Permission {
  return new Permission({
    id: `p${++counter}`,
    role: OPERATOR_ROLE,
    collection: 'cargos',
    action: 'create',
    permissions: null,
    validation: null,
    presets: null,
    fields: ['*'],
    ...props,
  });
}

/** writeGrantsFor as the handlers call it: the real filter parser and dynamic-value binding. */
export function grantsFor(caller: Accountability, permissions: Permission[], action: WriteAction = 'create') {
  const context = { user: caller.user, role: caller.role, now: NOW };
  return writeGrantsFor(
    caller,
    permissions,
    cargosSchema,
    action,
    (raw) => parseFilter(raw, cargosSchema),
    (node) => bindDynamicValues(node, context, cargosSchema),
  );
}
