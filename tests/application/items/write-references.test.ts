import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { InMemoryItemStore } from '../../../src/adapters/persistence/memory/in-memory-item-store.ts';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { ReadRules } from '../../../src/application/items/read-rules.ts';
import { answerStillReferenced } from '../../../src/application/items/write-references.ts';
import type { DomainError } from '../../../src/domain/errors.ts';
import { type Referrers, StillReferenced } from '../../../src/domain/items/still-referenced.ts';
import { Permission, type RawFilter } from '../../../src/domain/permissions/permission.ts';
import { CALLER, NOW, ROLE } from './write-fixture.ts';

const references = suite('still referenced: the 400 only when the caller may read every referring row');

/** Docks 1–3; berths refer to them by an int8 `dock`: 1 by a visible berth, 2 by a hidden one, 3 by none. */
async function fixture(read: RawFilter | null = { is_hidden: { _eq: false } }) {
  const persistence = createInMemoryPersistence();
  const docks = await persistence.schemaEditor.createCollection('docks', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'name', type: 'string' },
  ]);
  await persistence.schemaEditor.createCollection('berths', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'dock', type: 'bigInteger' },
    { field: 'is_hidden', type: 'boolean', isNullable: false, defaultValue: false },
  ]);
  const store = persistence.items as InMemoryItemStore;
  store.insert('docks', [
    { id: 1, name: 'Seen' },
    { id: 2, name: 'Hidden' },
    { id: 3, name: 'Free' },
  ]);
  store.insert('berths', [
    { id: 1, dock: '1', is_hidden: false },
    { id: 2, dock: '2', is_hidden: true },
  ]);
  if (read !== null) {
    await persistence.permissions.save(
      new Permission({
        id: randomUUID(),
        role: ROLE.operator,
        collection: 'berths',
        action: 'read',
        permissions: read,
        validation: null,
        presets: null,
        fields: ['*'],
      }),
    );
  }
  const deps = {
    items: persistence.items,
    catalog: persistence.schema,
    readRules: new ReadRules(persistence.permissions),
  };
  const berthsToDocks: Referrers = {
    collection: 'berths',
    columns: ['dock'],
    referenced: { collection: 'docks', columns: ['id'] },
  };
  return async (
    caller: (typeof CALLER)[keyof typeof CALLER],
    ids: number[],
    referrers: Referrers | null = berthsToDocks,
  ): Promise<DomainError> =>
    answerStillReferenced(deps, new StillReferenced(referrers), {
      caller,
      collection: docks,
      targets: ids.map((id) => ({ id, name: 'any' })),
      now: new Date(NOW),
    });
}

const codeOf = (error: DomainError) => [error.code, error.extensions.field];

references('every referring row readable → FAILED_VALIDATION "still refer"', async () => {
  const answer = await fixture();
  const error = await answer(CALLER.ada, [1]);
  assert.equal(codeOf(error), ['FAILED_VALIDATION', undefined]);
  assert.match(error.message, /still refer/);
});

references(
  'a referring row the caller cannot read → the refusal: FORBIDDEN, UNAUTHENTICATED when anonymous',
  async () => {
    const answer = await fixture();
    assert.equal(codeOf(await answer(CALLER.ada, [2])), ['FORBIDDEN', undefined]);
    assert.equal(codeOf(await answer(CALLER.ada, [1, 2])), ['FORBIDDEN', undefined]);
    assert.equal(codeOf(await answer(CALLER.anonymous, [1])), ['UNAUTHENTICATED', undefined]);
  },
);

references(
  'no read permission on the referring collection, or a table that is none → the refusal',
  async () => {
    const answer = await fixture(null);
    assert.equal(codeOf(await answer(CALLER.ada, [1])), ['FORBIDDEN', undefined]);
    assert.equal(codeOf(await answer(CALLER.ada, [1], null)), ['FORBIDDEN', undefined]);
    const elsewhere = {
      collection: 'datagate_users',
      columns: ['dock'],
      referenced: { collection: 'docks', columns: ['id'] },
    };
    assert.equal(codeOf(await answer(CALLER.ada, [1], elsewhere)), ['FORBIDDEN', undefined]);
  },
);

references('no referring row found any more (changed meanwhile) → the refusal, never the 400', async () => {
  const answer = await fixture();
  assert.equal(codeOf(await answer(CALLER.ada, [3])), ['FORBIDDEN', undefined]);
});

references('admins read everything: always the 400', async () => {
  const answer = await fixture();
  assert.equal(codeOf(await answer(CALLER.admin, [2])), ['FAILED_VALIDATION', undefined]);
});

references.run();
