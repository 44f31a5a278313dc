// Builds the floor's statements by running datagate's own read path once: the real container resolves the
// caller from the real token, the real handlers parse the query and apply the permissions, and a store that
// only records the request hands it to the same compile helpers `PostgresItemStore` runs its SQL through.
// Usage (env as the server's: DATABASE_URL, SECRET): node --import tsx bench/plan.ts <plan.json>
// stdin: {"cases":[{"name","path","token","optional"?}]}; writes {"cases":[{"name","path","sql","parameters"}],
// "skipped":["<name>: <why>"]}: an `optional` case this build cannot plan is skipped, not fatal.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadConfig } from '../src/adapters/config/load-config.ts';
import { resolveSecret } from '../src/adapters/config/resolve-secret.ts';
import { itemQuery } from '../src/adapters/http/item-query-string.ts';
import {
  type CompiledItemQuery,
  compileItemGet,
  compileItemList,
} from '../src/adapters/persistence/postgres/postgres-item-store.ts';
import { ResolveAccountabilityHandler } from '../src/application/auth/resolve-accountability.ts';
import { GetItemHandler } from '../src/application/items/get-item.ts';
import { ListItemsHandler } from '../src/application/items/list-items.ts';
import type { ItemStore } from '../src/application/ports/item-store.ts';
import { buildContainer } from '../src/container.ts';
import { openPersistence } from '../src/main.ts';

type PlanInput = { cases: Array<{ name: string; path: string; token: string; optional?: boolean }> };
export type PlanCase = { name: string; path: string } & CompiledItemQuery;

const input = JSON.parse(readFileSync(0, 'utf8')) as PlanInput;
const output = process.argv[2];
if (!output) throw new Error('usage: plan.ts <output.json>');

const config = resolveSecret(loadConfig());
const persistence = await openPersistence(config);
try {
  await persistence.schema.refresh();
  let compiled: CompiledItemQuery | null = null;
  const recorder: ItemStore = {
    async list(request) {
      compiled = compileItemList(request);
      return { json: '[]' };
    },
    async get(request) {
      compiled = compileItemGet(request);
      return '{}';
    },
    getMany: () => Promise.reject(new Error('the plan records list and get only')),
    aggregate: () => Promise.reject(new Error('the plan records list and get only')),
    write: () => Promise.reject(new Error('the plan only reads')),
    snapshot: () => Promise.reject(new Error('the plan records list and get only')),
  };
  const container = await buildContainer(config, { ...persistence, items: recorder });
  const resolve = container.get(ResolveAccountabilityHandler);
  const cases: PlanCase[] = [];
  const skipped: string[] = [];
  const planOne = async (name: string, path: string, token: string) => {
    const url = new URL(path, 'http://127.0.0.1');
    const caller = await resolve.execute(null, { token });
    const query = itemQuery({ querystring: url.search.slice(1) } as Parameters<typeof itemQuery>[0]);
    const [, items, collection, key] = url.pathname.split('/');
    if (items !== 'items' || !collection) throw new Error(`not an item read: ${path}`);
    compiled = null;
    if (key === undefined) {
      await container.get(ListItemsHandler).execute(caller, { collection, query });
    } else {
      await container.get(GetItemHandler).execute(caller, { collection, id: key, query });
    }
    if (compiled === null) throw new Error(`no statement recorded for ${name}`);
    cases.push({ name, path, ...(compiled as CompiledItemQuery) });
  };
  for (const { name, path, token, optional } of input.cases) {
    try {
      await planOne(name, path, token);
    } catch (error) {
      if (!optional) throw error;
      skipped.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  writeFileSync(output, `${JSON.stringify({ cases, skipped }, null, 2)}\n`);
} finally {
  await persistence.close();
}
