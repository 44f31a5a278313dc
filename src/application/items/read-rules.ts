import type { Accountability } from '../../domain/accountability.ts';
import { entryOf } from '../../domain/map-entry.ts';
import { grantingRole } from '../../domain/permissions/granting-role.ts';
import type { Permission } from '../../domain/permissions/permission.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { readRuleFor } from '../../domain/permissions/read-rule-for.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import { inCodePointOrder } from '../../domain/permissions/rule-text-order.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { parseFilter } from '../../domain/query/parse-filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import { type CacheMeter, NO_METRICS } from '../ports/metrics.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';

/** Roles × collections: small; past this the memo simply starts over. */
const MAX_MEMOIZED = 1_000;

type Memo = { collection: CollectionSchema; permissions: ReadonlyArray<Permission>; rule: ReadRule | null };

/** The memo's key for an admin, whose rule no role grants. */
const ADMIN = Symbol('admin');

/**
 * The caller's read rule for a collection; refuses callers with no read permission at all.
 *
 * The rule is rebuilt only when its inputs change: it is memoized per granting role and collection while
 * the schema snapshot and the permission objects are the same ones (both caches hand out new objects on
 * change). Permissions with `$CURRENT_USER`-style values are bound per caller and per moment, so rules
 * from them are never memoized.
 */
export class ReadRules {
  /** By granting role (ADMIN for an admin), then by collection name: asked on every read, no key is built. */
  private readonly memo = new Map<string | null | typeof ADMIN, Map<string, Memo>>();

  constructor(
    private readonly permissions: PermissionRepository,
    private readonly meter: CacheMeter = NO_METRICS.cache('read_rules'),
  ) {}

  async for(caller: Accountability, collection: CollectionSchema, now: Date): Promise<ReadRule> {
    const rule = await this.optional(caller, collection, now);
    if (!rule) throw refusal(caller);
    return rule;
  }

  /** The rule, or null when the caller may read nothing (a write then answers 204 instead of the item). */
  async optional(caller: Accountability, collection: CollectionSchema, now: Date): Promise<ReadRule | null> {
    const role = caller.admin ? null : grantingRole(caller);
    const granted = caller.admin ? [] : await this.permissions.listFor(role, collection.name, 'read');
    const key = caller.admin ? ADMIN : role;
    const known = this.memo.get(key)?.get(collection.name);
    if (known && known.collection === collection && sameItems(known.permissions, granted)) {
      this.meter.hit();
      return known.rule;
    }
    this.meter.miss();

    const context = { user: caller.user, role: caller.role, now };
    const rule = readRuleFor(
      caller,
      granted,
      collection,
      (raw) => inCodePointOrder(parseFilter(raw, collection)),
      (node) => bindDynamicValues(node, context, collection),
    );
    if (!granted.some(hasDynamicValues)) {
      if (memoizedIn(this.memo) >= MAX_MEMOIZED) this.memo.clear();
      entryOf(this.memo, key, () => new Map<string, Memo>()).set(collection.name, {
        collection,
        permissions: granted,
        rule,
      });
    }
    return rule;
  }
}

/**
 * Counted only when a rule is memoized, which is rare: once per role and collection until the schema or the
 * permissions change.
 */
function memoizedIn(memo: ReadonlyMap<unknown, ReadonlyMap<string, Memo>>): number {
  let count = 0;
  for (const ofRole of memo.values()) count += ofRole.size;
  return count;
}

function sameItems<T>(a: ReadonlyArray<T>, b: ReadonlyArray<T>): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/** Conservative: any string starting with `$` counts, so a rule is never memoized when it might vary. */
function hasDynamicValues(permission: Permission): boolean {
  return permission.permissions !== null && JSON.stringify(permission.permissions).includes('"$');
}
