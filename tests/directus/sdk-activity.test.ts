import { readActivities, readActivity, readRevision, readRevisions } from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, ID } from './cargos-scenario.ts';
import { sdkError } from './sdk-clients.ts';
import { type SdkScenario, startSdkScenario, stopSdkScenario } from './sdk-scenario.ts';

type Context = SdkScenario;

/** docs/api.md §14 as a Directus client reads it: readActivities, readRevisions, readRevision. */
for (const [target, history] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk activity and revisions on ${backend}`,
)) {
  history.before(async (context) => {
    Object.assign(context, await startSdkScenario(target));
    // The seed bypasses the write API: one update through it gives every cargo its history.
    const checked = await context.scenario.app.request('PATCH', '/items/cargos', {
      token: ADMIN_STATIC_TOKEN,
      body: { keys: [ID.fish, ID.bananas, ID.archived, ID.unmeasured], data: { temperature: 1 } },
    });
    assert.is(checked.status, 200, checked.text);
  });
  history.after((context) => stopSdkScenario(context, target));

  history('readActivities and readRevisions answer the updates to an admin', async ({ admin }) => {
    const entries = await admin.request(
      readActivities({
        filter: { collection: { _eq: 'cargos' } },
        fields: ['action', 'item'],
        sort: ['item'],
      }),
    );
    assert.equal(
      entries.map((entry) => `${entry.action} ${entry.item}`),
      [ID.fish, ID.bananas, ID.archived, ID.unmeasured].sort().map((id) => `update ${id}`),
    );
    const revisions = await admin.request(readRevisions({ filter: { item: { _eq: ID.archived } } }));
    assert.is(revisions.length, 1);
    assert.is((revisions[0]!.data as { is_deleted: boolean }).is_deleted, true);
    // The written fields: the payload's, and the server's own (`date_updated`).
    assert.equal(Object.keys(revisions[0]!.delta as object).sort(), ['date_updated', 'temperature']);
  });

  history(
    'an operator reads only the revisions of live cargos, without is_deleted',
    async ({ admin, operator }) => {
      const revisions = await operator.request(readRevisions({ fields: ['item', 'data', 'delta'] }));
      assert.equal(
        revisions.map((revision) => revision.item).sort(),
        [ID.fish, ID.bananas, ID.unmeasured].sort(),
      );
      for (const revision of revisions) {
        assert.not.ok('is_deleted' in (revision.data as object), 'a hidden field is stripped from data');
        assert.not.ok('is_deleted' in (revision.delta as object), 'and from delta');
      }
      const [archived] = await admin.request(readRevisions({ filter: { item: { _eq: ID.archived } } }));
      await sdkError(operator.request(readRevision(archived!.id)), 404, 'NOT_FOUND');
    },
  );

  history('readActivity and readRevision take fields and refuse a filter', async ({ admin }) => {
    const [revision] = await admin.request(readRevisions({ filter: { item: { _eq: ID.fish } } }));
    assert.equal(await admin.request(readRevision(revision!.id, { fields: ['item'] })), { item: ID.fish });
    assert.equal(await admin.request(readActivity(revision!.activity as number, { fields: ['item'] })), {
      item: ID.fish,
    });
    for (const read of [
      readRevision(revision!.id, { filter: { item: { _eq: ID.bananas } } }),
      readActivity(1, { search: 'x' }),
    ]) {
      await sdkError(admin.request(read as never), 400, 'INVALID_QUERY');
    }
  });

  history.run();
}
