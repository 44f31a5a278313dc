import type { Accountability } from '../../domain/accountability.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { Clock } from '../ports/clock.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import { ROLES_COLLECTION } from '../system-queries/system-collections.ts';
import { type SystemList, systemList } from '../system-queries/system-list.ts';
import { parseSystemListQuery } from '../system-queries/system-list-query.ts';
import { viewRole } from './role-view.ts';

export type QueryRolesRequest = { readonly query: RawItemQuery };

/** GET /roles, for admins: the item query language over the roles' public fields, in one repository call. */
export class QueryRolesHandler implements Handler<QueryRolesRequest, SystemList> {
  constructor(
    private readonly roles: RoleRepository,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
  ) {}

  async execute(caller: Accountability, { query }: QueryRolesRequest): Promise<SystemList> {
    requireAdmin(caller);
    const request = parseSystemListQuery(query, ROLES_COLLECTION, this.limits, caller, this.clock.now());
    return systemList(await this.roles.query(request.query), viewRole, request.fields);
  }
}
