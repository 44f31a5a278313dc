import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Accountability } from '../../../src/domain/accountability.ts';
import {
  CALLER,
  CARGO,
  CARGOS,
  NOT_DELETED,
  refusedUnchanged,
  type WriteFixture,
  writeFixture,
} from './write-fixture.ts';

const clash = suite('write clashes: RECORD_NOT_UNIQUE only when rows the caller may read explain it');

const FIG = '0190a1b2-0000-7000-8000-0000000000f1';
const HIDDEN = '0190a1b2-0000-7000-8000-0000000000f9';

/**
 * The cargos fixture with a unique `code`: apples holds `A-1` (readable by the operators' rule), an
 * archived cargo `H-1` (outside it). The operators read non-archived cargos, every field unless told.
 */
async function clashFixture(read: { fields?: string[] } | null = {}): Promise<WriteFixture> {
  const fixture = await writeFixture();
  await fixture.persistence.schemaEditor.addField(CARGOS, { field: 'code', type: 'string', isUnique: true });
  await fixture.update(CALLER.admin, { code: 'A-1' }, { key: CARGO.apples });
  fixture.seed([{ id: HIDDEN, label: 'Hidden', code: 'H-1', is_deleted: true }]);
  if (read !== null) await fixture.grant('read', { permissions: NOT_DELETED, ...read });
  return fixture;
}

/** `who` creates `body`: refused with `code` (naming `field`), and the table is unchanged. */
function createRefused(
  fixture: WriteFixture,
  who: Accountability,
  body: unknown,
  code: string,
  field?: string,
): Promise<void> {
  return refusedUnchanged(fixture, () => fixture.create(who, body), code, field);
}

clash('create: a value a readable row holds → RECORD_NOT_UNIQUE naming the field', async () => {
  const fixture = await clashFixture();
  await fixture.grant('create');
  await createRefused(fixture, CALLER.ada, { label: 'Figs', code: 'A-1' }, 'RECORD_NOT_UNIQUE', 'code');
});

clash('create: a value only a row outside the read rule holds → FORBIDDEN naming the field', async () => {
  const fixture = await clashFixture();
  await fixture.grant('create');
  await createRefused(fixture, CALLER.ada, { label: 'Figs', code: 'H-1' }, 'FORBIDDEN', 'code');
  await createRefused(fixture, CALLER.ada, { id: HIDDEN, label: 'Figs' }, 'FORBIDDEN', 'id');
});

clash('create: a readable row whose clashing field the caller may not read → FORBIDDEN', async () => {
  const fixture = await clashFixture({ fields: ['id', 'label'] });
  await fixture.grant('create');
  await createRefused(fixture, CALLER.ada, { label: 'Figs', code: 'A-1' }, 'FORBIDDEN', 'code');
  await createRefused(fixture, CALLER.ada, { id: CARGO.apples, label: 'Figs' }, 'RECORD_NOT_UNIQUE', 'id');
});

clash('create without any read permission: every clash with a stored row → FORBIDDEN', async () => {
  const fixture = await clashFixture(null);
  await fixture.grant('create');
  await createRefused(fixture, CALLER.ada, { label: 'Figs', code: 'A-1' }, 'FORBIDDEN', 'code');
});

clash(
  'create many: two items of the batch with one value → RECORD_NOT_UNIQUE, whatever hidden rows hold',
  async () => {
    const fixture = await clashFixture();
    await fixture.grant('create');
    for (const code of ['N-1', 'H-1']) {
      const batch = [
        { label: 'Figs', code },
        { label: 'Grapes', code },
      ];
      await createRefused(fixture, CALLER.ada, batch, 'RECORD_NOT_UNIQUE', 'code');
    }
  },
);

clash(
  'the public caller hears UNAUTHENTICATED for a hidden clash, as for a field it may not write',
  async () => {
    const fixture = await clashFixture();
    await fixture.grant('read', { role: null, permissions: NOT_DELETED });
    await fixture.grant('create', { role: null, fields: ['label', 'code'] });
    await createRefused(fixture, CALLER.anonymous, { label: 'Figs', code: 'H-1' }, 'UNAUTHENTICATED');
    await createRefused(fixture, CALLER.anonymous, { label: 'Figs', status: 'x' }, 'UNAUTHENTICATED');
    await createRefused(fixture, CALLER.carol, { label: 'Figs', code: 'H-1' }, 'FORBIDDEN', 'code');
  },
);

clash('admins read every row: any clash → RECORD_NOT_UNIQUE', async () => {
  const fixture = await clashFixture();
  await createRefused(fixture, CALLER.admin, { label: 'Figs', code: 'H-1' }, 'RECORD_NOT_UNIQUE', 'code');
});

clash(
  'create: a field outside the create permission is refused before the insert, even on a clash',
  async () => {
    const fixture = await clashFixture();
    await fixture.grant('create', { fields: ['label', 'code'] });
    await createRefused(fixture, CALLER.ada, { id: CARGO.apples, label: 'Figs' }, 'FORBIDDEN', 'id');
    await createRefused(fixture, CALLER.ada, { id: HIDDEN, label: 'Figs' }, 'FORBIDDEN', 'id');
  },
);

clash('create: an item outside the create rule is refused before the insert, even on a clash', async () => {
  const fixture = await clashFixture();
  await fixture.grant('create', { permissions: { label: { _neq: 'Forbidden' } } });
  await createRefused(fixture, CALLER.ada, { label: 'Forbidden', code: 'A-1' }, 'FORBIDDEN');
});

clash('create: a rule about a defaulted column still sees its default before the insert', async () => {
  const fixture = await clashFixture();
  await fixture.grant('create', { permissions: NOT_DELETED, fields: ['id', 'label', 'code'] });
  await fixture.create(CALLER.ada, { id: FIG, label: 'Figs', code: 'F-1' });
  assert.is(fixture.row(FIG)?.is_deleted, false);
});

clash(
  'update by key, keys, array and query to a value only a hidden row holds → FORBIDDEN naming the field',
  async () => {
    const fixture = await clashFixture();
    await fixture.grant('update', { permissions: NOT_DELETED });
    const data = { code: 'H-1' };
    for (const [body, key] of [
      [data, CARGO.bananas],
      [{ keys: [CARGO.bananas], data }, undefined],
      [[{ id: CARGO.bananas, ...data }], undefined],
      [{ query: { filter: { id: { _eq: CARGO.bananas } } }, data }, undefined],
    ] as const) {
      await refusedUnchanged(
        fixture,
        () => fixture.update(CALLER.ada, body, key === undefined ? {} : { key }),
        'FORBIDDEN',
        'code',
      );
    }
  },
);

clash('update to a value a readable row holds, or of two rows to one value → RECORD_NOT_UNIQUE', async () => {
  const fixture = await clashFixture();
  await fixture.grant('update', { permissions: NOT_DELETED });
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.ada, { code: 'A-1' }, { key: CARGO.bananas }),
    'RECORD_NOT_UNIQUE',
    'code',
  );
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.ada, { keys: [CARGO.bananas, CARGO.dates], data: { code: 'N-1' } }),
    'RECORD_NOT_UNIQUE',
    'code',
  );
});

clash.run();
