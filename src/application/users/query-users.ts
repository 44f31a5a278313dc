import type { Accountability } from '../../domain/accountability.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { Clock } from '../ports/clock.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { USERS_COLLECTION } from '../system-queries/system-collections.ts';
import { type SystemList, systemList } from '../system-queries/system-list.ts';
import { parseSystemListQuery } from '../system-queries/system-list-query.ts';
import { viewUser } from './user-view.ts';

export type QueryUsersRequest = { readonly query: RawItemQuery };

/** GET /users, for admins: the item query language over the users' public fields, in one repository call. */
export class QueryUsersHandler implements Handler<QueryUsersRequest, SystemList> {
  constructor(
    private readonly users: UserRepository,
    private readonly clock: Clock,
    private readonly limits: QueryLimits,
  ) {}

  async execute(caller: Accountability, { query }: QueryUsersRequest): Promise<SystemList> {
    requireAdmin(caller);
    const request = parseSystemListQuery(query, USERS_COLLECTION, this.limits, caller, this.clock.now());
    return systemList(await this.users.query(request.query), viewUser, request.fields);
  }
}
