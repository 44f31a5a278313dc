import * as assert from 'uvu/assert';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { backends } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { itemEventsContract } from './item-events.contract.ts';

for (const backend of backends()) itemEventsContract(backend.persistence()).run();

const pruning = skippableSuite<Record<string, never>>('In-memory change log pruning', undefined);

pruning(
  'events older than the replay window are pruned, and their positions are no longer covered',
  async () => {
    let now = 0;
    const persistence = createInMemoryPersistence({ itemEvents: { replayWindowMs: 1000, now: () => now } });
    await persistence.schemaEditor.createCollection('cargos', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
    ]);
    const cargos = persistence.schema.current().collections.get('cargos')!;
    const feed = persistence.itemEvents!;
    await persistence.items.write((writer) => writer.insert(cargos, [{ id: 1 }]));
    now = 600;
    await persistence.items.write((writer) => writer.insert(cargos, [{ id: 2 }]));
    assert.is((await feed.since('0', 10))?.length, 2);
    now = 1200;
    assert.is(await feed.since('0', 10), null);
    assert.equal(
      (await feed.since('1', 10))?.map((event) => event.key),
      [2],
    );
    now = 1700;
    assert.is(await feed.since('1', 10), null);
    assert.equal(await feed.since('2', 10), []);
    assert.is(await feed.latest(), '2');
  },
);

pruning.run();
