import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { storedDraft } from '../../../src/domain/items/stored-draft.ts';
import type { CollectionSchema } from '../../../src/domain/schema/collection-schema.ts';
import { field } from '../../support/cargos-schema.ts';

/** Defaults as PostgreSQL prints them (pg_get_expr): constants, casts, and what only the database computes. */
const parcels: CollectionSchema = {
  name: 'parcels',
  primaryKey: 'id',
  fields: [
    field('id', 'integer', 'integer', { nullable: false, isPrimaryKey: true, hasDefault: true }),
    field('is_archived', 'boolean', 'boolean', { nullable: false, hasDefault: true, defaultValue: 'false' }),
    field('status', 'string', 'character varying(16)', {
      hasDefault: true,
      defaultValue: "'it''s new'::character varying",
      maxLength: 16,
    }),
    field('crates', 'integer', 'integer', { hasDefault: true, defaultValue: '3' }),
    field('below', 'integer', 'integer', { hasDefault: true, defaultValue: "'-1'::integer" }),
    field('manifest', 'json', 'jsonb', { hasDefault: true, defaultValue: '\'{"b": 1, "a": []}\'::jsonb' }),
    field('note', 'text', 'text', { hasDefault: true, defaultValue: 'NULL::text' }),
    field('label', 'text', 'text'),
    field('received', 'dateTime', 'timestamp with time zone', { hasDefault: true, defaultValue: 'now()' }),
    field('ticket', 'text', 'text', { hasDefault: true, defaultValue: "(nextval('t'::regclass))::text" }),
    field('tags', 'unknown', 'text[]', { hasDefault: true, defaultValue: "'{}'::text[]" }),
  ],
};

test('constant defaults are filled in as the column stores them; a column without one is null', () => {
  const { item } = storedDraft({ label: 'Figs' }, parcels);
  assert.equal(
    { ...item },
    {
      is_archived: false,
      status: "it's new",
      crates: 3,
      below: -1,
      manifest: '{"a":[],"b":1}',
      note: null,
      label: 'Figs',
    },
  );
});

test('a column only the database can fill is unknown: identity, now(), a sequence, a type not modelled', () => {
  const { unknown } = storedDraft({}, parcels);
  assert.equal([...unknown].sort(), ['id', 'received', 'tags', 'ticket']);
});

test('what the item names wins over any default, and is never unknown', () => {
  const { item, unknown } = storedDraft({ id: 7, is_archived: true, received: null }, parcels);
  assert.is(item.id, 7);
  assert.is(item.is_archived, true);
  assert.is(item.received, null);
  assert.equal([...unknown].sort(), ['tags', 'ticket']);
});

test.run();
