import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import { type SystemRecord, selectFields } from '../system-queries/select-fields.ts';
import { ROLES_COLLECTION } from '../system-queries/system-collections.ts';
import { parseSystemFields } from '../system-queries/system-list-query.ts';
import { viewRole } from './role-view.ts';

/** `query`: the query string; only its `fields` applies (docs/api.md §6). */
export type GetRoleRequest = { readonly id: string; readonly query?: RawItemQuery };

export class GetRoleHandler implements Handler<GetRoleRequest, SystemRecord> {
  constructor(
    private readonly roles: RoleRepository,
    private readonly limits: QueryLimits,
  ) {}

  async execute(caller: Accountability, { id, query }: GetRoleRequest): Promise<SystemRecord> {
    requireAdmin(caller);
    const fields = parseSystemFields(query, ROLES_COLLECTION, this.limits);
    const role = await this.roles.findById(id);
    if (!role) throw notFound('Role');
    return selectFields(viewRole(role), fields);
  }
}
