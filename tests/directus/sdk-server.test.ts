import {
  clearCache,
  readItems,
  readOpenApiSpec,
  serverHealth,
  serverInfo,
  serverPing,
  utilsImport,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ID } from './cargos-scenario.ts';
import { sdkError } from './sdk-clients.ts';
import { type SdkScenario, startSdkScenario, stopSdkScenario } from './sdk-scenario.ts';

type Context = SdkScenario;

function csvFile(text: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/csv' }), 'cargos.csv');
  return form;
}

/**
 * `@directus/sdk`'s server and utility functions (docs/api.md §7 "Server", §13): health, ping, info, the
 * OpenAPI document, the cache, imports, and exports read with `readItems(…, { export })`.
 */
for (const [target, server] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk server and utilities on ${backend}`,
)) {
  server.before(async (context) => {
    Object.assign(context, await startSdkScenario(target));
  });
  server.after((context) => stopSdkScenario(context, target));

  server('serverHealth and serverPing answer anyone', async ({ clients }) => {
    const anonymous = clients.anonymous();
    const health = await anonymous.request(serverHealth());
    assert.is(health.status, 'ok');
    assert.is(
      (health as unknown as { checks: { database: { status: string } } }).checks.database.status,
      'ok',
    );
    assert.is(await anonymous.request(serverPing()), 'pong');
  });

  server('serverInfo answers admins only', async ({ admin, operator, clients }) => {
    const info = (await admin.request(serverInfo())) as unknown as Record<string, unknown>;
    assert.equal(Object.keys(info), ['version', 'uptime', 'node']);
    await sdkError(operator.request(serverInfo()), 403, 'FORBIDDEN');
    await sdkError(clients.anonymous().request(serverInfo()), 401, 'UNAUTHENTICATED');
  });

  server('readOpenApiSpec describes what the caller may do', async ({ admin, operator, clients }) => {
    const pathsOf = (document: unknown) => Object.keys((document as { paths: object }).paths);
    const forAdmin = pathsOf(await admin.request(readOpenApiSpec()));
    const forOperator = pathsOf(await operator.request(readOpenApiSpec()));
    const forAnyone = pathsOf(await clients.anonymous().request(readOpenApiSpec()));
    assert.ok(forAdmin.includes('/users') && forAdmin.includes('/items/cargos'), forAdmin.join());
    assert.ok(forOperator.includes('/items/cargos') && !forOperator.includes('/users'), forOperator.join());
    assert.ok(!forAnyone.includes('/items/cargos') && forAnyone.includes('/auth/login'), forAnyone.join());
  });

  server('clearCache: admins only', async ({ admin, operator }) => {
    assert.is(await admin.request(clearCache()), null);
    await sdkError(operator.request(clearCache()), 403, 'FORBIDDEN');
  });

  server(
    'utilsImport creates the rows of a file as the caller may create items',
    async ({ operator, scenario }) => {
      const imported = await operator.request(
        utilsImport('cargos', csvFile('description,temperature\nPlums,4\nPears,\n')),
      );
      assert.equal(imported, { inserted: 2 });
      const stored = [...(await scenario.stored()).values()].filter((row) =>
        ['Plums', 'Pears'].includes(String(row.description)),
      );
      assert.equal(stored.map((row) => [row.description, row.temperature, row.is_deleted]).sort(), [
        ['Pears', null, false],
        ['Plums', 4, false],
      ]);
      const before = await scenario.stored();
      const hidden = await sdkError(
        operator.request(utilsImport('cargos', csvFile('description,is_deleted\nHidden,true\n'))),
        403,
        'FORBIDDEN',
      );
      assert.is(hidden.errors[0]?.extensions.field, 'is_deleted');
      const invalid = await sdkError(
        operator.request(utilsImport('cargos', csvFile('description,temperature\nHot,99\n'))),
        400,
        'FAILED_VALIDATION',
      );
      assert.is(invalid.errors[0]?.extensions.field, 'temperature');
      assert.equal(await scenario.stored(), before);
    },
  );

  server('readItems with export: json is the list, csv the fetch Response', async ({ operator }) => {
    const query = {
      fields: ['id', 'temperature'],
      filter: { id: { _in: [ID.fish, ID.bananas] } },
      sort: ['id'],
    };
    const json = await operator.request(readItems('cargos', { ...query, export: 'json' } as never));
    assert.equal(json, await operator.request(readItems('cargos', query as never)));
    const csv = (await operator.request(
      readItems('cargos', { ...query, export: 'csv' } as never),
    )) as unknown;
    assert.ok(csv instanceof Response, 'the SDK hands back what it cannot parse');
    assert.match(
      String(csv.headers.get('content-disposition')),
      /^attachment; filename="cargos-\d{8}T\d{6}Z\.csv"$/,
    );
    assert.is(await csv.text(), `id,temperature\r\n${ID.fish},-18\r\n${ID.bananas},13.5\r\n`);
    await sdkError(
      operator.request(readItems('cargos', { fields: ['is_deleted'], export: 'csv' } as never)),
      403,
      'FORBIDDEN',
    );
  });

  server.run();
}
