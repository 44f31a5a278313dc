import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import { type SystemRecord, selectFields } from '../system-queries/select-fields.ts';
import { USERS_COLLECTION } from '../system-queries/system-collections.ts';
import { parseSystemFields } from '../system-queries/system-list-query.ts';
import { viewUser } from './user-view.ts';

/** `query`: the query string; only its `fields` applies (docs/api.md §3a). */
export type GetUserRequest = { readonly id: string; readonly query?: RawItemQuery };

export class GetUserHandler implements Handler<GetUserRequest, SystemRecord> {
  constructor(
    private readonly users: UserRepository,
    private readonly limits: QueryLimits,
  ) {}

  async execute(caller: Accountability, { id, query }: GetUserRequest): Promise<SystemRecord> {
    requireAdmin(caller);
    const fields = parseSystemFields(query, USERS_COLLECTION, this.limits);
    const user = await this.users.findById(id);
    if (!user) throw notFound('User');
    return selectFields(viewUser(user), fields);
  }
}
