import type { MikroORM } from '@mikro-orm/postgresql';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { SchemaEditor } from '../../../application/ports/schema-catalog.ts';
import type { CollectionSchema, SchemaSnapshot } from '../../../domain/schema/collection-schema.ts';
import type { NewField } from '../../../domain/schema/new-field.ts';
import { manyToOneOf } from '../../../domain/schema/relations-of.ts';
import { createPostgresCollections, userTablesDatabase } from './postgres-collections.ts';

/** The seed document's sample collection. */
export const CARGOS_COLLECTION = 'cargos';
/** The collections it refers to: each cargo travels in a shipment, each shipment is for a customer. */
export const SHIPMENTS_COLLECTION = 'shipments';
export const CUSTOMERS_COLLECTION = 'customers';

export const CARGOS_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'uuid', isPrimaryKey: true },
  { field: 'date_created', type: 'timestamp' },
  { field: 'date_updated', type: 'timestamp' },
  { field: 'description', type: 'text' },
  { field: 'temperature', type: 'float' },
  { field: 'is_deleted', type: 'boolean', isNullable: false, defaultValue: false },
  { field: 'shipment', type: 'integer' },
];

export const SHIPMENTS_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'number', type: 'string', maxLength: 16, isNullable: false, isUnique: true },
  { field: 'destination', type: 'string', maxLength: 64 },
  { field: 'customer', type: 'integer' },
];

export const CUSTOMERS_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'name', type: 'string', maxLength: 100, isNullable: false, isUnique: true },
];

/**
 * The sample customers, made once with the collection: ids 1 to 8 in this order. Shipments take them in
 * turn, so every customer has shipments (the README's walk-through filters on the first one's name).
 */
export const SAMPLE_CUSTOMERS: ReadonlyArray<string> = [
  'ACME Logistics',
  'Nordic Fresh',
  'Andes Coffee Traders',
  'Polar Pharma',
  'Tropical Fruit Co.',
  'Alpine Dairy',
  'Sunrise Florists',
  'Harbor Seafood',
];

const DESTINATIONS = [
  'Rotterdam',
  'Hamburg',
  'Antwerp',
  'Valencia',
  'Gdansk',
  'Le Havre',
  'Genoa',
  'Piraeus',
];

/** One new shipment per this many cargos; about 2 % of cargos travel in none (their `shipment` is null). */
const CARGOS_PER_SHIPMENT = 50;

export type SampleCargosOptions = {
  rows: number;
  /** Called after each committed batch with the rows inserted so far. */
  onProgress?: (inserted: number, total: number) => void;
  /** PostgreSQL schema of the collections; `public` by default. */
  schema?: string;
  batchSize?: number;
};

const DEFAULT_BATCH_SIZE = 50_000;

/**
 * Creates the `cargos` collection when it is missing — with `customers` and `shipments` and the foreign keys
 * `cargos.shipment → shipments` and `shipments.customer → customers`, each indexed (docs/api.md §7a) — and
 * adds `rows` generated items, with a new shipment for about every 50 of them. The rows are made by
 * the server (`generate_series`), so nothing but the batch size crosses the wire; each batch is its own
 * statement and commits on its own, so progress is real and an interruption keeps whole batches. The three
 * tables are analyzed at the end, so the planner (and `meta=estimated_*`, docs/api.md §4) knows their sizes.
 *
 * Items look like the seed's: ids are UUID v7 of their creation time (so they sort by it), timestamps in
 * whole seconds over the past year, about 30 % updated since, 5 % without temperature, 10 % deleted.
 *
 * A running server keeps its catalog in memory: refresh it afterwards if this ran beside it.
 */
export async function createSampleCargos(
  orm: MikroORM,
  options: SampleCargosOptions,
): Promise<CollectionSchema> {
  if (!Number.isSafeInteger(options.rows) || options.rows < 0)
    throw new Error('rows must be a whole number ≥ 0');
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const { catalog, editor } = createPostgresCollections(orm, { schema: options.schema });
  const db = userTablesDatabase(orm);
  const table = (name: string) => sql.id(catalog.schema, name);
  const existing = await catalog.refresh();
  if (!existing.collections.has(CUSTOMERS_COLLECTION)) {
    await editor.createCollection(CUSTOMERS_COLLECTION, CUSTOMERS_FIELDS);
    await sql`insert into ${table(CUSTOMERS_COLLECTION)} (name)
      select name from unnest(array[${sql.join(SAMPLE_CUSTOMERS)}]::text[]) with ordinality as t(name, n)
      order by n`.execute(db);
  }
  if (!existing.collections.has(SHIPMENTS_COLLECTION)) {
    await editor.createCollection(SHIPMENTS_COLLECTION, SHIPMENTS_FIELDS);
  }
  await relateIndexed(editor, db, table, catalog.current(), [
    SHIPMENTS_COLLECTION,
    'customer',
    CUSTOMERS_COLLECTION,
  ]);
  const found = catalog.current().collections.get(CARGOS_COLLECTION);
  if (!found) await editor.createCollection(CARGOS_COLLECTION, CARGOS_FIELDS);
  // A `cargos` made by an earlier version has no `shipment` yet.
  else if (!found.fields.some((field) => field.name === 'shipment'))
    await editor.addField(CARGOS_COLLECTION, { field: 'shipment', type: 'integer' });
  await relateIndexed(editor, db, table, catalog.current(), [
    CARGOS_COLLECTION,
    'shipment',
    SHIPMENTS_COLLECTION,
  ]);
  const cargos = catalog.current().collections.get(CARGOS_COLLECTION)!;
  let inserted = 0;
  while (inserted < options.rows) {
    const count = Math.min(batchSize, options.rows - inserted);
    const shipments = Math.ceil(count / CARGOS_PER_SHIPMENT);
    // The batch's shipments and cargos in one statement: the cargos draw among the shipments just made.
    await sql`with customer_ids as (select array_agg(id) as ids from ${table(CUSTOMERS_COLLECTION)}),
      base as (select count(*) as n from ${table(SHIPMENTS_COLLECTION)}),
      new_shipments as (
        insert into ${table(SHIPMENTS_COLLECTION)} (number, destination, customer)
        select 'S-' || lpad((base.n + g)::text, 6, '0'),
          (array[${sql.join(DESTINATIONS)}]::text[])[1 + floor(random() * ${DESTINATIONS.length})::int],
          customer_ids.ids[1 + ((base.n + g - 1) % cardinality(customer_ids.ids))::int]
        from base, customer_ids, generate_series(1, ${shipments}::int) as g
        returning id),
      shipment_ids as (select array_agg(id) as ids from new_shipments)
      insert into ${table(CARGOS_COLLECTION)} (id, date_created, date_updated, description, temperature, is_deleted, shipment)
      select
        -- UUID v7: the creation time in ms over the first 48 bits of a random v4, version bits 0100 → 0111.
        encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
          placing substring(int8send((extract(epoch from created) * 1000)::int8) from 3) from 1 for 6),
          52, 1), 53, 1), 'hex')::uuid,
        created,
        case when random() < 0.3 then created + date_trunc('second', random() * interval '30 days') end,
        (array['Frozen fish', 'Bananas', 'Coffee beans', 'Vaccines', 'Flowers', 'Chocolate', 'Ice cream',
          'Pharmaceuticals', 'Cheese', 'Salad'])[1 + floor(random() * 10)::int] || ' #' || (${inserted} + g),
        case when random() >= 0.05 then round((random() * 50 - 25)::numeric, 1)::float8 end,
        random() < 0.1,
        case when random() >= 0.02 then shipment_ids.ids[1 + floor(random() * cardinality(shipment_ids.ids))::int] end
      -- A subquery with a volatile output is not flattened: each row draws its own creation time once.
      from shipment_ids, (select g, date_trunc('second', localtimestamp - random() * interval '365 days') as created
        from generate_series(1, ${count}::int) as g) as t`.execute(db);
    inserted += count;
    options.onProgress?.(inserted, options.rows);
  }
  // A bulk load is when PostgreSQL's documentation says to run ANALYZE: the embedded database runs no
  // autovacuum, and a server's would leave the planner without statistics for a minute or more.
  await sql`analyze ${table(CUSTOMERS_COLLECTION)}, ${table(SHIPMENTS_COLLECTION)}, ${table(CARGOS_COLLECTION)}`.execute(
    db,
  );
  return cargos;
}

/** Declares `collection.field → related` unless it already is a relation, with an index on the field. */
async function relateIndexed(
  editor: SchemaEditor,
  db: Kysely<unknown>,
  table: (name: string) => RawBuilder<unknown>,
  snapshot: SchemaSnapshot,
  [collection, field, related]: readonly [string, string, string],
): Promise<void> {
  if (manyToOneOf(snapshot, collection, field)) return;
  await editor.createRelation({ collection, field, relatedCollection: related });
  await sql`create index if not exists ${sql.id(`${collection}_${field}_index`)}
    on ${table(collection)} (${sql.id(field)})`.execute(db);
}
