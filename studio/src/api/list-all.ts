import type { ApiClient, Query } from './client.ts';

/**
 * Every row of a system list (`/roles`, `/permissions`), page after page at the server's default page
 * size: no `limit` is sent, so none can be over `query.limitMax`, whatever it is set to.
 */
export async function listAll<T>(api: ApiClient, path: string, query: Query = {}): Promise<T[]> {
  const rows: T[] = [];
  for (;;) {
    const page = await api.list<T>(path, { ...query, offset: rows.length, meta: 'total_count' });
    rows.push(...page.rows);
    if (page.rows.length === 0 || rows.length >= (page.totalCount ?? 0)) return rows;
  }
}
