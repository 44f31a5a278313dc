import type { Accountability } from '../accountability.ts';
import { DomainError } from '../errors.ts';
import type { BoundFilterNode, ScalarValue } from '../query/filter.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';
import { grantingRole } from './granting-role.ts';
import type { Permission, RawFilter } from './permission.ts';
import type { ParsePermissionFilter } from './read-rule-for.ts';
import type { BindWriteFilter, WriteAction, WriteGrant, WriteGrants } from './write-grant.ts';
import { parsePresets } from './write-presets.ts';

export {
  authorizeCreate,
  authorizeCreateDraft,
  authorizeDelete,
  authorizeUpdate,
  refuseUngrantedFields,
} from './write-authorization.ts';
export type { BindWriteFilter, WriteAction, WriteGrant, WriteGrants } from './write-grant.ts';

/**
 * What the caller may `action` on `collection`: 'all' for admins; otherwise one grant per usable
 * permission of the caller's granting role (granting-role.ts: public permissions for callers without a
 * role) for that action and collection. An empty list = no right at all: answer `refusal(caller)`.
 * `permissions` may be more than the caller's: the others are ignored, so a wrong list can narrow access
 * but never widen it.
 *
 * A permission that cannot be used grants nothing, keeping the others working (fail closed, as
 * read-rule-for.ts does): a row or validation filter, or a preset, that no longer fits the collection;
 * for create and update, `fields` null, empty, or naming only fields the collection lacks (`["*"]` = all).
 * Delete sets no field, so its `fields`, `validation` and `presets` are not looked at.
 */
export function writeGrantsFor(
  caller: Accountability,
  permissions: ReadonlyArray<Permission>,
  collection: CollectionSchema,
  action: WriteAction,
  parse: ParsePermissionFilter,
  bind: BindWriteFilter,
): WriteGrant[] | 'all' {
  if (caller.admin) return 'all';
  const role = grantingRole(caller);
  const grants: WriteGrant[] = [];
  for (const permission of permissions) {
    if (permission.action !== action || permission.collection !== collection.name) continue;
    if (permission.role !== role) continue;
    const grant = grantOf(permission, collection, action, parse, bind);
    if (grant) grants.push(grant);
  }
  return grants;
}

function grantOf(
  permission: Permission,
  collection: CollectionSchema,
  action: WriteAction,
  parse: ParsePermissionFilter,
  bind: BindWriteFilter,
): WriteGrant | null {
  try {
    const rows = filterOf(permission.permissions, parse, bind);
    if (action === 'delete') return { collection, rows, fields: 'all', validation: null, presets: {} };
    const fields = fieldsOf(permission.fields, collection);
    if (fields === null) return null;
    const validation = filterOf(permission.validation, parse, bind);
    const presets = parsePresets(permission.presets, collection, bind);
    return { collection, rows, fields, validation, presets };
  } catch (error) {
    // INVALID_QUERY from a filter, INVALID_PAYLOAD / FAILED_VALIDATION from presets: the admin's rule no
    // longer fits, which is no error of the caller's.
    if (error instanceof DomainError) return null;
    throw error;
  }
}

function filterOf(
  raw: RawFilter | null,
  parse: ParsePermissionFilter,
  bind: BindWriteFilter,
): BoundFilterNode | null {
  return raw === null ? null : bind(parse(raw));
}

/** null = the permission lets no field be written. */
function fieldsOf(
  names: ReadonlyArray<string> | null,
  collection: CollectionSchema,
): WriteGrant['fields'] | null {
  if (names === null) return null;
  if (names.includes('*')) return 'all';
  const known = new Set(names.filter((name) => collection.fields.some((field) => field.name === name)));
  return known.size === 0 ? null : known;
}

/**
 * The presets to fill in before the payload: those of every grant, a later grant's overriding an
 * earlier one's for the same field (Directus merges all of a role's presets this way). Whatever they
 * produce is still checked: the resulting item must fit some grant's rows and validation.
 * Built with Object.fromEntries, so no field name can reach an object's prototype.
 */
export function presetsOf(grants: WriteGrants): Record<string, ScalarValue | null> {
  if (grants === 'all') return {};
  return Object.fromEntries(grants.flatMap((grant) => Object.entries(grant.presets)));
}
