import {
  createItem,
  createItems,
  deleteItem,
  deleteItems,
  readItems,
  updateItem,
  updateItems,
  updateItemsBatch,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, ID, OPERATOR_READ } from './cargos-scenario.ts';
import { sdkError } from './sdk-clients.ts';
import { type SdkScenario, startSdkScenario, stopSdkScenario } from './sdk-scenario.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SEED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

type Context = SdkScenario & {};

for (const [target, writes] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk writes on ${backend}`,
)) {
  writes.before(async (context) => {
    Object.assign(context, await startSdkScenario(target));
  });
  writes.after((context) => stopSdkScenario(context, target));

  /** Cargos made for one test, so tests do not depend on each other's leftovers. */
  const make = (operator: Context['operator'], descriptions: string[]) =>
    operator.request(
      createItems(
        'cargos',
        descriptions.map((description) => ({ description, temperature: 1 })),
      ),
    );

  writes('createItem: the stored item as the operator may read it', async ({ scenario, operator }) => {
    const item = await operator.request(createItem('cargos', { description: 'Cod', temperature: -20 }));
    assert.match(item.id, UUID_V7);
    assert.match(String(item.date_created), SEED_TIMESTAMP);
    assert.equal(Object.keys(item), OPERATOR_READ);
    assert.equal([item.description, item.temperature], ['Cod', -20]);
    const stored = (await scenario.stored()).get(item.id);
    assert.equal([stored?.description, stored?.is_deleted], ['Cod', false], 'the preset filled is_deleted');
  });

  writes('createItems: in order, shaped by fields', async ({ scenario, operator }) => {
    const items = await operator.request(
      createItems('cargos', [{ description: 'A' }, { description: 'B', temperature: 2 }], {
        fields: ['id', 'description'],
      }),
    );
    assert.equal(
      items.map((item) => Object.keys(item)),
      [
        ['id', 'description'],
        ['id', 'description'],
      ],
    );
    assert.equal(
      items.map((item) => item.description),
      ['A', 'B'],
    );
    const stored = await scenario.stored();
    for (const item of items) assert.ok(stored.has(item.id));
  });

  writes('updateItem: the changed item, date_updated set', async ({ scenario, operator }) => {
    const [made] = await make(operator, ['Before']);
    const item = await operator.request(updateItem('cargos', made!.id, { description: 'After' }));
    assert.is(item.description, 'After');
    assert.match(String(item.date_updated), SEED_TIMESTAMP);
    assert.is((await scenario.stored()).get(made!.id)?.description, 'After');
  });

  writes('updateItems by keys and by query; updateItemsBatch', async ({ scenario, operator }) => {
    const made = await make(operator, ['k1', 'k2', 'q1', 'b1', 'b2']);
    const [k1, k2, q1, b1, b2] = made.map((item) => item.id);

    const byKeys = await operator.request(updateItems('cargos', [k1!, k2!], { temperature: 7 }));
    assert.equal(
      byKeys.map((item) => [item.id, item.temperature]),
      [
        [k1, 7],
        [k2, 7],
      ],
    );

    const byQuery = await operator.request(
      updateItems(
        'cargos',
        { filter: { description: { _eq: 'q1' } } },
        { temperature: -7 },
        { fields: ['id'] },
      ),
    );
    assert.equal(byQuery, [{ id: q1 }]);

    const batch = await operator.request(
      updateItemsBatch('cargos', [
        { id: b1, description: 'b1 changed' },
        { id: b2, temperature: 29 },
      ]),
    );
    assert.equal(
      batch.map((item) => [item.description, item.temperature]),
      [
        ['b1 changed', 1],
        ['b2', 29],
      ],
    );

    const stored = await scenario.stored();
    assert.equal(
      [k1, k2, q1, b1, b2].map((id) => stored.get(id!)?.temperature),
      [7, 7, -7, 1, 29],
    );
    assert.is(stored.get(b1!)?.description, 'b1 changed');
  });

  writes('deleteItem, deleteItems by keys and by query', async ({ scenario, operator }) => {
    const made = await make(operator, ['d1', 'd2', 'd3', 'd4', 'gone by query']);
    const [d1, d2, d3, d4, d5] = made.map((item) => item.id);
    assert.is(await operator.request(deleteItem('cargos', d1!)), null);
    assert.is(await operator.request(deleteItems('cargos', [d2!, d3!])), null);
    assert.is(
      await operator.request(deleteItems('cargos', { filter: { description: { _eq: 'gone by query' } } })),
      null,
    );
    const stored = await scenario.stored();
    assert.equal(
      [d1, d2, d3, d4, d5].map((id) => stored.has(id!)),
      [false, false, false, true, false],
    );
  });

  writes('refusals carry our error codes and write nothing', async ({ scenario, operator }) => {
    const [mine] = await make(operator, ['untouched']);
    const before = await scenario.stored();

    const hidden = await sdkError(
      operator.request(createItem('cargos', { description: 'x', is_deleted: true })),
      403,
      'FORBIDDEN',
    );
    assert.is(hidden.errors[0]?.extensions.field, 'is_deleted');
    const unknown = await sdkError(
      operator.request(createItem('cargos', { description: 'x', colour: 'red' } as never)),
      400,
      'INVALID_PAYLOAD',
    );
    assert.is(unknown.errors[0]?.extensions.field, 'colour');
    const invalid = await sdkError(
      operator.request(updateItems('cargos', [mine!.id], { temperature: 99 })),
      400,
      'FAILED_VALIDATION',
    );
    assert.is(invalid.errors[0]?.extensions.field, 'temperature');
    await sdkError(
      operator.request(updateItem('cargos', ID.archived, { description: 'x' })),
      404,
      'NOT_FOUND',
    );
    // One key the operator may not see fails the whole batch.
    await sdkError(operator.request(deleteItems('cargos', [mine!.id, ID.archived])), 404, 'NOT_FOUND');
    await sdkError(operator.request(deleteItem('cargos', ID.missing)), 404, 'NOT_FOUND');

    assert.equal(await scenario.stored(), before);
  });

  writes(
    'a write’s answer takes fields, not filter or alias: refused before anything is written',
    async ({ scenario, operator }) => {
      const before = await scenario.stored();
      for (const query of [{ filter: { id: { _eq: ID.fish } } }, { alias: { degrees: 'temperature' } }]) {
        await sdkError(
          operator.request(createItem('cargos', { description: 'never stored' }, query as never)),
          400,
          'INVALID_QUERY',
        );
        await sdkError(
          operator.request(updateItem('cargos', ID.fish, { description: 'never changed' }, query as never)),
          400,
          'INVALID_QUERY',
        );
      }
      assert.equal(await scenario.stored(), before);
    },
  );

  writes('the admin’s static token writes what the operator may not', async ({ scenario, clients }) => {
    const admin = clients.withStaticToken(ADMIN_STATIC_TOKEN);
    const archived = await admin.request(
      updateItem('cargos', ID.archived, { description: 'Restored', is_deleted: false }),
    );
    assert.equal([archived.description, archived.is_deleted], ['Restored', false]);
    await admin.request(deleteItem('cargos', ID.archived));
    assert.not.ok((await scenario.stored()).has(ID.archived));
    const left = await admin.request(readItems('cargos', { filter: { id: { _eq: ID.archived } } }));
    assert.equal(left, []);
  });

  writes.run();
}
