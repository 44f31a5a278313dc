import { sql } from 'kysely';
import * as assert from 'uvu/assert';
import { IN_MEMORY } from '../../../../src/adapters/persistence/mikro-orm/embedded-postgres.ts';
import {
  type MikroOrmPersistence,
  openMikroOrmPersistence,
} from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import type { ItemEvent } from '../../../../src/application/ports/item-events.ts';
import type { CollectionSchema } from '../../../../src/domain/schema/collection-schema.ts';
import { skippableSuite } from '../../../support/skippable-suite.ts';

type Context = { persistence: MikroOrmPersistence; cargos: CollectionSchema };

/**
 * Embedded PGlite whose safety poll would take ten minutes: an event that reaches a subscriber came by
 * PGlite's own notifications, whether the API or SQL by hand wrote it.
 */
const test = skippableSuite<Context>('The change log wakes its readers on PGlite', undefined);

test.before(async (context) => {
  context.persistence = await openMikroOrmPersistence({
    dataDir: IN_MEMORY,
    itemEvents: { replayWindowMs: 60_000, pollMs: 600_000 },
  });
  await context.persistence.migrate();
  await context.persistence.schemaEditor.createCollection('cargos', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'name', type: 'string' },
  ]);
  context.cargos = context.persistence.schema.current().collections.get('cargos')!;
});

test.after(async ({ persistence }) => {
  await persistence?.close();
});

test('writes through the API and by hand on a watched collection wake the subscribers', async ({
  persistence,
  cargos,
}) => {
  const received: ItemEvent[] = [];
  let arrived!: () => void;
  const arrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const unsubscribe = persistence.itemEvents!.subscribe({
    events: (batch) => {
      received.push(...batch);
      if (received.length >= 2) arrived();
    },
    lost: () => assert.unreachable('nothing is lost'),
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await persistence.items.write((writer) => writer.insert(cargos, [{ id: 1, name: 'by the API' }]));
  await persistence.watch!.watch(cargos);
  await sql`insert into cargos values (2, 'by hand')`.execute(userTablesDatabase(persistence.orm));
  await arrival;
  unsubscribe();
  assert.equal(
    received.map((event) => [event.action, event.key, event.after?.name]),
    [
      ['create', 1, 'by the API'],
      ['create', 2, 'by hand'],
    ],
  );
});

test.run();
