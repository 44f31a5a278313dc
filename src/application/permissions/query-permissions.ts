import type { Accountability } from '../../domain/accountability.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { Clock } from '../ports/clock.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';
import { PERMISSIONS_COLLECTION } from '../system-queries/system-collections.ts';
import { type SystemList, systemList } from '../system-queries/system-list.ts';
import { parseSystemListQuery } from '../system-queries/system-list-query.ts';
import { viewPermission } from './permission-view.ts';

export type QueryPermissionsRequest = { readonly query: RawItemQuery };

/** GET /permissions, for admins: the item query language over the permissions' public fields, in one repository call. */
export class QueryPermissionsHandler implements Handler<QueryPermissionsRequest, SystemList> {
  constructor(
    private readonly permissions: PermissionRepository,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
  ) {}

  async execute(caller: Accountability, { query }: QueryPermissionsRequest): Promise<SystemList> {
    requireAdmin(caller);
    const request = parseSystemListQuery(
      query,
      PERMISSIONS_COLLECTION,
      this.limits,
      caller,
      this.clock.now(),
    );
    return systemList(await this.permissions.query(request.query), viewPermission, request.fields);
  }
}
