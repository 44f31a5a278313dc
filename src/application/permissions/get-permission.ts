import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';
import { type SystemRecord, selectFields } from '../system-queries/select-fields.ts';
import { PERMISSIONS_COLLECTION } from '../system-queries/system-collections.ts';
import { parseSystemFields } from '../system-queries/system-list-query.ts';
import { viewPermission } from './permission-view.ts';

/** `query`: the query string; only its `fields` applies (docs/api.md §6). */
export type GetPermissionRequest = { readonly id: string; readonly query?: RawItemQuery };

export class GetPermissionHandler implements Handler<GetPermissionRequest, SystemRecord> {
  constructor(
    private readonly permissions: PermissionRepository,
    private readonly limits: QueryLimits,
  ) {}

  async execute(caller: Accountability, { id, query }: GetPermissionRequest): Promise<SystemRecord> {
    requireAdmin(caller);
    const fields = parseSystemFields(query, PERMISSIONS_COLLECTION, this.limits);
    const permission = await this.permissions.findById(id);
    if (!permission) throw notFound('Permission');
    return selectFields(viewPermission(permission), fields);
  }
}
