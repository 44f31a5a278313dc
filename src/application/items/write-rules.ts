import type { Accountability } from '../../domain/accountability.ts';
import { grantingRole } from '../../domain/permissions/granting-role.ts';
import type { PermissionAction } from '../../domain/permissions/permission.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import { type WriteGrant, writeGrantsFor } from '../../domain/permissions/write-grants.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { parseFilter } from '../../domain/query/parse-filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';

export type WriteAction = Exclude<PermissionAction, 'read'>;

/** The caller's grants for one write action on a collection; refuses callers with none. */
export class WriteRules {
  constructor(private readonly permissions: PermissionRepository) {}

  async for(
    caller: Accountability,
    collection: CollectionSchema,
    action: WriteAction,
    now: Date,
  ): Promise<WriteGrant[] | 'all'> {
    const granted = caller.admin
      ? []
      : await this.permissions.listFor(grantingRole(caller), collection.name, action);
    const context = { user: caller.user, role: caller.role, now };
    const grants = writeGrantsFor(
      caller,
      granted,
      collection,
      action,
      (raw) => parseFilter(raw, collection),
      (node) => bindDynamicValues(node, context, collection),
    );
    if (grants !== 'all' && grants.length === 0) throw refusal(caller);
    return grants;
  }
}
