import { type Query, readItem, readItems, withSearch } from '@directus/sdk';
import * as assert from 'uvu/assert';
import type { ErrorBody } from '../http/scenario.ts';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, type Cargo, ID, OPERATOR_READ, ROWS, type Schema } from './cargos-scenario.ts';
import { sdkError } from './sdk-clients.ts';
import { type SdkScenario, startSdkScenario, stopSdkScenario } from './sdk-scenario.ts';

type Context = SdkScenario & {
  /** Bodies as they came over the wire: the SDK hands back `data` only, so `meta` is seen here. */
  bodies: unknown[];
};

const ids = (items: ReadonlyArray<{ id?: string }>) => items.map((item) => item.id);

for (const [target, reads] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk reads on ${backend}`,
)) {
  reads.before(async (context) => {
    context.bodies = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      context.bodies.push(await response.clone().json());
      return response;
    };
    Object.assign(context, await startSdkScenario(target, { globals: { fetch: recording } }));
  });
  reads.after((context) => stopSdkScenario(context, target));

  reads('readItems: only live cargos, only the permitted fields', async ({ operator }) => {
    const items = await operator.request(readItems('cargos'));
    assert.equal(ids(items).sort(), [ID.fish, ID.bananas, ID.unmeasured].sort());
    for (const item of items) assert.equal(Object.keys(item), OPERATOR_READ);
  });

  reads('readItems with filter, sort, limit and fields', async ({ operator }) => {
    const warmest = await operator.request(
      readItems('cargos', {
        filter: { temperature: { _gt: -20 } },
        sort: ['-temperature'],
        limit: 1,
        fields: ['id', 'temperature'],
      }),
    );
    assert.equal(warmest, [{ id: ID.bananas, temperature: 13.5 }]);

    const nested = await operator.request(
      readItems('cargos', {
        filter: { _or: [{ temperature: { _null: true } }, { description: { _icontains: 'FISH' } }] },
        sort: ['date_created'],
        fields: ['id'],
      }),
    );
    assert.equal(ids(nested), [ID.fish, ID.unmeasured]);

    const second = await operator.request(readItems('cargos', { sort: ['date_created'], limit: 1, page: 2 }));
    assert.equal(ids(second), [ID.bananas]);
    const searched = await operator.request(
      readItems('cargos', { search: 'banana', fields: ['description'] }),
    );
    assert.equal(searched, [{ description: 'Bananas' }]);
  });

  reads('each query option readItems serializes, as datagate answers it', async ({ operator, bodies }) => {
    // The operator sees fish (-18), bananas (13.5) and the unmeasured cargo, by date_created in that order.
    const cases: Array<[string, Query<Schema, Cargo>, unknown]> = [
      [
        'fields',
        { fields: ['description'], sort: ['date_created'], limit: 1 },
        [{ description: 'Frozen fish' }],
      ],
      ['filter', { fields: ['id'], filter: { temperature: { _between: [0, 20] } } }, [{ id: ID.bananas }]],
      ['search', { fields: ['id'], search: 'TEMPERATURE' }, [{ id: ID.unmeasured }]],
      [
        'sort',
        { fields: ['id'], sort: ['-temperature'] },
        [ID.unmeasured, ID.bananas, ID.fish].map((id) => ({ id })),
      ],
      ['limit', { fields: ['id'], sort: ['date_created'], limit: 2 }, [{ id: ID.fish }, { id: ID.bananas }]],
      ['offset', { fields: ['id'], sort: ['date_created'], offset: 2 }, [{ id: ID.unmeasured }]],
      ['page', { fields: ['id'], sort: ['date_created'], limit: 2, page: 2 }, [{ id: ID.unmeasured }]],
      ['limit 0', { fields: ['id'], limit: 0 }, []],
      [
        'aggregate and groupBy',
        { aggregate: { count: '*' }, groupBy: ['description'], filter: { temperature: { _lt: 0 } } } as never,
        [{ description: 'Frozen fish', count: 1 }],
      ],
      [
        'groupBy on a hidden field',
        { aggregate: { count: '*' }, groupBy: ['is_deleted'] } as never,
        'FORBIDDEN',
      ],
      ['aggregate', { aggregate: { max: 'temperature' } } as never, [{ max: { temperature: 13.5 } }]],
      [
        'meta',
        { fields: ['id'], filter: { temperature: { _gt: 0 } }, meta: 'filter_count' } as never,
        [{ id: ID.bananas }],
      ],
    ];
    for (const [name, query, expected] of cases) {
      const answer = await operator
        .request(readItems('cargos', query))
        .catch(
          (error: { errors: Array<{ extensions: { code: string } }> }) => error.errors[0]!.extensions.code,
        );
      assert.equal(answer, expected, name);
    }
    assert.equal((bodies.at(-1) as { meta: unknown }).meta, { filter_count: 1 });
  });

  reads('an _or cannot widen the permission: the archived cargo stays hidden', async ({ operator }) => {
    const items = await operator.request(
      readItems('cargos', {
        filter: {
          _or: [
            { id: { _eq: ID.archived } },
            { temperature: { _gt: -1000 } },
            { temperature: { _null: true } },
          ],
        },
      }),
    );
    assert.not.ok(ids(items).includes(ID.archived));
    assert.is(items.length, 3);
  });

  reads('meta: counts arrive in the body beside data', async ({ operator, bodies }) => {
    const page = await operator.request(
      readItems('cargos', { filter: { temperature: { _lt: 0 } }, meta: '*', limit: 1 }),
    );
    assert.equal(ids(page), [ID.fish]);
    assert.equal((bodies.at(-1) as { meta: unknown }).meta, { total_count: 3, filter_count: 1 });
  });

  reads('readItem: a visible cargo, with fields', async ({ operator }) => {
    const fish = await operator.request(readItem('cargos', ID.fish));
    const { is_deleted: _hidden, ...readable } = ROWS[0]!;
    assert.equal(fish, readable);
    assert.equal(await operator.request(readItem('cargos', ID.fish, { fields: ['description'] })), {
      description: 'Frozen fish',
    });
  });

  reads('readItem: archived and missing cargos are the same NOT_FOUND', async ({ operator }) => {
    const archived = await sdkError(operator.request(readItem('cargos', ID.archived)), 404, 'NOT_FOUND');
    const missing = await sdkError(operator.request(readItem('cargos', ID.missing)), 404, 'NOT_FOUND');
    assert.equal(archived.errors, missing.errors);
  });

  reads(
    'readItem refuses what would change its answer (filter, search, aggregate, groupBy, alias, version) instead of ignoring it',
    async ({ operator }) => {
      // Directus applies filter and search to a read by key; ignored, they would answer the item regardless.
      const queries: Array<[string, Record<string, unknown>]> = [
        ['filter', { filter: { temperature: { _gt: 100 } } }],
        ['search', { search: 'bananas' }],
        // Ignored, these answered the item where groups were asked for.
        ['aggregate', { aggregate: { count: '*' } }],
        ['groupBy', { groupBy: ['temperature'] }],
        ['alias', { alias: { degrees: 'temperature' }, fields: ['id', 'degrees'] }],
        ['version', { version: 'draft' }],
      ];
      for (const [name, query] of queries) {
        const error = await sdkError(
          operator.request(readItem('cargos', ID.fish, query)),
          400,
          'INVALID_QUERY',
        );
        assert.equal(error.errors[0]?.extensions, {
          code: 'INVALID_QUERY',
          reason: 'UNSUPPORTED_PARAMETER',
          field: name,
        });
      }
      // What means nothing for one item is ignored, as unknown parameters are.
      assert.equal(
        await operator.request(readItem('cargos', ID.fish, { fields: ['id'], sort: ['-id'], limit: 5 })),
        { id: ID.fish },
      );
    },
  );

  reads('a hidden field is FORBIDDEN to select, filter or sort on', async ({ operator }) => {
    const queries: Array<Query<Schema, Cargo>> = [
      { fields: ['id', 'is_deleted'] },
      { filter: { is_deleted: { _eq: true } } },
      { sort: ['is_deleted'] },
    ];
    for (const query of queries) {
      await sdkError(operator.request(readItems('cargos', query)), 403, 'FORBIDDEN');
    }
  });

  reads('bad queries are INVALID_QUERY', async ({ operator }) => {
    for (const query of [
      { limit: 5000 },
      { filter: { temperature: { _gt: 'warm' } } },
      { filter: { nothing: { _eq: 1 } } },
      { sort: ['nothing'] },
      // `deep` on a relation `fields` does not expand is refused rather than ignored (docs/api.md §4).
      { deep: { nothing: { _limit: 1 } } },
      // Directus's aliases and content versions do not exist here: refused, not ignored.
      { alias: { degrees: 'temperature' } },
      { version: 'draft' },
    ]) {
      await sdkError(operator.request(readItems('cargos', query as never)), 400, 'INVALID_QUERY');
    }
  });

  reads('withSearch: the same query in a SEARCH body, also when too long for a URL', async ({ operator }) => {
    const query: Query<Schema, Cargo> = {
      filter: { temperature: { _gt: -20 } },
      sort: ['-temperature'],
      fields: ['id'],
    };
    assert.equal(
      await operator.request(withSearch(readItems('cargos', query))),
      await operator.request(readItems('cargos', query)),
    );
    const all = await operator.request(withSearch(readItems('cargos', { sort: ['id'] })));
    assert.equal(Object.keys(all[0]!), OPERATOR_READ, 'no fields asked for: every permitted field');

    // 1,000 keys: over the 16 KiB a request line may have (http.maxQueryLength, Node's header limit),
    // well under the body limit.
    const keys = [
      ID.bananas,
      ...Array.from(
        { length: 999 },
        (_, index) => `0190c000-0000-7000-8000-1${String(index).padStart(11, '0')}`,
      ),
    ];
    const byKeys = { filter: { id: { _in: keys } }, fields: ['id'] } satisfies Query<Schema, Cargo>;
    assert.ok(JSON.stringify(byKeys.filter).length > 16_384);
    assert.equal(await operator.request(withSearch(readItems('cargos', byKeys))), [{ id: ID.bananas }]);
  });

  reads('a SEARCH body other than { query } is INVALID_PAYLOAD', async ({ scenario: { app }, operator }) => {
    const token = (await operator.getToken())!;
    const response = await app.request('SEARCH', '/items/cargos', { token, body: { keys: [ID.fish] } });
    assert.is(response.status, 400, response.text);
    assert.is((response.body as ErrorBody).errors[0]?.extensions.code, 'INVALID_PAYLOAD');
  });

  reads('the admin’s static token sees every cargo and field', async ({ clients }) => {
    const admin = clients.withStaticToken(ADMIN_STATIC_TOKEN);
    const items = await admin.request(readItems('cargos', { sort: ['date_created'] }));
    assert.equal(items, ROWS);
  });

  reads.run();
}
