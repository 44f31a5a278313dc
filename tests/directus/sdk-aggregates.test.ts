import { aggregate } from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN } from './cargos-scenario.ts';
import { sdkError } from './sdk-clients.ts';
import { type SdkScenario, startSdkScenario, stopSdkScenario } from './sdk-scenario.ts';

type Context = SdkScenario & {};

/** @directus/sdk `aggregate()` against datagate (docs/api.md §4b): the operator reads live cargos only. */
for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk aggregate() on ${backend}`,
)) {
  test.before(async (context) => {
    Object.assign(context, await startSdkScenario(target));
  });
  test.after((context) => stopSdkScenario(context, target));

  test('count, avg, min and max over the rows the caller may read', async ({ operator, clients }) => {
    assert.equal(await operator.request(aggregate('cargos', { aggregate: { count: '*' } })), [{ count: 3 }]);
    assert.equal(
      await operator.request(
        aggregate('cargos', { aggregate: { avg: 'temperature', min: 'temperature', count: 'temperature' } }),
      ),
      [{ avg: { temperature: -2.25 }, min: { temperature: -18 }, count: { temperature: 2 } }],
    );
    const admin = clients.withStaticToken(ADMIN_STATIC_TOKEN);
    assert.equal(await admin.request(aggregate('cargos', { aggregate: { count: '*' } })), [{ count: 4 }]);
  });

  test('groupBy with a query: filter, sort by an aggregate, limit', async ({ operator }) => {
    const groups = await operator.request(
      aggregate('cargos', {
        aggregate: { count: '*' },
        groupBy: ['day(date_created)' as never],
        query: { filter: { temperature: { _nnull: true } }, sort: ['-date_created_day' as never], limit: 1 },
      }),
    );
    assert.equal(groups, [{ date_created_day: 2, count: 1 }]);
  });

  test('a field the caller may not read is FORBIDDEN; an unknown one INVALID_QUERY', async ({ operator }) => {
    await sdkError(
      operator.request(aggregate('cargos', { aggregate: { count: 'is_deleted' } })),
      403,
      'FORBIDDEN',
    );
    await sdkError(
      operator.request(aggregate('cargos', { aggregate: { count: '*' }, groupBy: ['is_deleted'] })),
      403,
      'FORBIDDEN',
    );
    await sdkError(
      operator.request(aggregate('cargos', { aggregate: { sum: 'description' } })),
      400,
      'INVALID_QUERY',
    );
  });

  test.run();
}
