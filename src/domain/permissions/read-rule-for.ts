import type { Accountability } from '../accountability.ts';
import { DomainError } from '../errors.ts';
import type { BoundFilterNode, FilterNode } from '../query/filter.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';
import { adminReadRule, combineReadRule, type ReadGrant } from './combine-read-rule.ts';
import { grantingRole } from './granting-role.ts';
import type { Permission, RawFilter } from './permission.ts';
import type { ReadRule } from './read-rule.ts';

/** Turns a stored permission filter into a FilterNode for this collection (throws INVALID_QUERY). */
export type ParsePermissionFilter = (raw: RawFilter) => FilterNode;

/** Resolves `$CURRENT_USER`, `$CURRENT_ROLE` and `$NOW` for the current request. */
export type BindPermissionFilter = (node: FilterNode) => BoundFilterNode;

/**
 * What the caller may read of `collection`; null = nothing (answer with `refusal(caller)`).
 * `permissions` may be more than the caller's: only the read permissions of the caller's granting role
 * for this collection are used, so a wrong list can narrow access but never widen it.
 *
 * A permission whose filter no longer fits the collection (a field it names was dropped since) grants
 * nothing: failing closed for that one grant keeps the others working, and does not answer the reader
 * with an error about a filter they never wrote and may not see.
 */
export function readRuleFor(
  caller: Accountability,
  permissions: ReadonlyArray<Permission>,
  collection: CollectionSchema,
  parse: ParsePermissionFilter,
  bind: BindPermissionFilter,
): ReadRule | null {
  if (caller.admin) return adminReadRule(collection);
  const role = grantingRole(caller);
  const grants: ReadGrant[] = [];
  for (const permission of permissions) {
    if (permission.action !== 'read' || permission.collection !== collection.name) continue;
    if (permission.role !== role) continue;
    const rows = rowsOf(permission, parse, bind);
    if (rows !== 'unusable') grants.push({ rows, fields: permission.fields });
  }
  return combineReadRule(grants, collection);
}

function rowsOf(
  permission: Permission,
  parse: ParsePermissionFilter,
  bind: BindPermissionFilter,
): BoundFilterNode | null | 'unusable' {
  if (permission.permissions === null) return null;
  try {
    return bind(parse(permission.permissions));
  } catch (error) {
    if (error instanceof DomainError && error.code === 'INVALID_QUERY') return 'unusable';
    throw error;
  }
}
