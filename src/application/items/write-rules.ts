import type { Accountability } from '../../domain/accountability.ts';
import { grantingRole } from '../../domain/permissions/granting-role.ts';
import type { PermissionAction } from '../../domain/permissions/permission.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import { inCodePointOrder } from '../../domain/permissions/rule-text-order.ts';
import { type WriteGrant, writeGrantsFor } from '../../domain/permissions/write-grants.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { parseFilter } from '../../domain/query/parse-filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';

export type WriteAction = Exclude<PermissionAction, 'read'>;

/** The caller's grants for one write action on a collection. */
export class WriteRules {
  constructor(private readonly permissions: PermissionRepository) {}

  /** Refuses callers with no grant (403, or 401 for anonymous callers). */
  async for(
    caller: Accountability,
    collection: CollectionSchema,
    action: WriteAction,
    now: Date,
  ): Promise<WriteGrant[] | 'all'> {
    const grants = await this.optional(caller, collection, action, now);
    if (grants !== 'all' && grants.length === 0) throw refusal(caller);
    return grants;
  }

  /** As `for`, but "no grant" is an empty list rather than a refusal (for describing what a caller may do). */
  async optional(
    caller: Accountability,
    collection: CollectionSchema,
    action: WriteAction,
    now: Date,
  ): Promise<WriteGrant[] | 'all'> {
    const granted = caller.admin
      ? []
      : await this.permissions.listFor(grantingRole(caller), collection.name, action);
    const context = { user: caller.user, role: caller.role, now };
    return writeGrantsFor(
      caller,
      granted,
      collection,
      action,
      (raw) => inCodePointOrder(parseFilter(raw, collection)),
      (node) => bindDynamicValues(node, context, collection),
    );
  }
}
