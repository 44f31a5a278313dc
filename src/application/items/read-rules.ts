import type { Accountability } from '../../domain/accountability.ts';
import { grantingRole } from '../../domain/permissions/granting-role.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { readRuleFor } from '../../domain/permissions/read-rule-for.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { parseFilter } from '../../domain/query/parse-filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';

/** The caller's read rule for a collection; refuses callers with no read permission at all. */
export class ReadRules {
  constructor(private readonly permissions: PermissionRepository) {}

  async for(caller: Accountability, collection: CollectionSchema, now: Date): Promise<ReadRule> {
    const rule = await this.optional(caller, collection, now);
    if (!rule) throw refusal(caller);
    return rule;
  }

  /** The rule, or null when the caller may read nothing (a write then answers 204 instead of the item). */
  async optional(caller: Accountability, collection: CollectionSchema, now: Date): Promise<ReadRule | null> {
    const granted = caller.admin
      ? []
      : await this.permissions.listFor(grantingRole(caller), collection.name, 'read');
    const context = { user: caller.user, role: caller.role, now };
    return readRuleFor(
      caller,
      granted,
      collection,
      (raw) => parseFilter(raw, collection),
      (node) => bindDynamicValues(node, context, collection),
    );
  }
}
