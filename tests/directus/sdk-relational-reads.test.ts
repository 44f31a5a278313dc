import { createDirectus, readItem, readItems, rest, staticToken } from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { dropShippingCollections, startShippingApp } from '../support/shipping-app.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import type { TestApp } from '../support/test-app.ts';

/**
 * `@directus/sdk` against the directus profile with relations (docs/api.md §4, nested reads): the SDK's
 * object syntax for nested `fields`, `deep`, and filters across relations, as a Directus client sends them.
 */

type Customer = { id: number; name: string; secret: string; shipments: number[] | Shipment[] };
type Shipment = {
  id: number;
  number: string;
  customer: number | Customer | null;
  cargos: number[] | Cargo[];
};
type Cargo = {
  id: number;
  label: string;
  weight: number;
  secret: string;
  shipment: number | Shipment | null;
};
type Schema = { customers: Customer[]; shipments: Shipment[]; cargos: Cargo[] };

type Context = { app: TestApp; tokens: Record<string, string> };

const client = (app: TestApp, token: string) =>
  createDirectus<Schema>(app.url).with(staticToken(token)).with(rest());

for (const [target, reads] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk relational reads on ${backend}`,
)) {
  reads.before(async (context) => {
    Object.assign(
      context,
      await startShippingApp(
        target,
        {
          // Sees shipment S-1 only: S-2's cargos read their shipment as null.
          clerk: [
            { collection: 'customers' },
            { collection: 'shipments', permissions: { number: { _eq: 'S-1' } } },
            { collection: 'cargos' },
          ],
        },
        'directus',
      ),
    );
  });
  reads.after(async ({ app }) => {
    const { schemaEditor, schema } = app.persistence;
    await dropShippingCollections(schemaEditor, schema.current().collections);
    await app.close();
    await target.dispose();
  });

  reads('readItems with nested fields in the object syntax', async ({ app, tokens }) => {
    const cargos = await client(app, tokens.admin!).request(
      readItems('cargos', {
        fields: ['id', { shipment: ['number', { customer: ['name'] }] }],
        sort: ['id'],
        limit: 3,
      }),
    );
    assert.equal(cargos, [
      { id: 1, shipment: { number: 'S-1', customer: { name: 'ACME' } } },
      { id: 2, shipment: { number: 'S-1', customer: { name: 'ACME' } } },
      { id: 3, shipment: { number: 'S-2', customer: { name: 'Globex' } } },
    ]);
  });

  reads('readItems with a one-to-many and deep', async ({ app, tokens }) => {
    const shipments = await client(app, tokens.admin!).request(
      readItems('shipments', {
        fields: ['number', { cargos: ['label'] }],
        deep: { cargos: { _sort: ['-weight'], _limit: 1 } },
        sort: ['id'],
      }),
    );
    assert.equal(shipments, [
      { number: 'S-1', cargos: [{ label: 'bolts' }] },
      { number: 'S-2', cargos: [{ label: 'cables' }] },
      { number: 'S-3', cargos: [] },
    ]);
  });

  reads('filters across relations, and a hidden related row as null', async ({ app, tokens }) => {
    const acme = await client(app, tokens.admin!).request(
      readItems('cargos', {
        fields: ['id'],
        filter: { shipment: { customer: { name: { _eq: 'ACME' } } } },
        sort: ['id'],
      }),
    );
    assert.equal(acme, [{ id: 1 }, { id: 2 }]);
    const heavy = await client(app, tokens.admin!).request(
      readItems('shipments', { fields: ['id'], filter: { cargos: { _some: { weight: { _gt: 10 } } } } }),
    );
    assert.equal(heavy, [{ id: 2 }]);
    const seen = await client(app, tokens.clerk!).request(
      readItem('cargos', 3, { fields: ['id', { shipment: ['number'] }] }),
    );
    assert.equal(seen, { id: 3, shipment: null });
  });

  reads.run();
}
