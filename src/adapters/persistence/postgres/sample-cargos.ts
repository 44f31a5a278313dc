import type { MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import type { NewField } from '../../../domain/schema/new-field.ts';
import { createPostgresCollections, userTablesDatabase } from './postgres-collections.ts';

/** The seed document's sample collection. */
export const CARGOS_COLLECTION = 'cargos';

export const CARGOS_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'uuid', isPrimaryKey: true },
  { field: 'date_created', type: 'timestamp' },
  { field: 'date_updated', type: 'timestamp' },
  { field: 'description', type: 'text' },
  { field: 'temperature', type: 'float' },
  { field: 'is_deleted', type: 'boolean', isNullable: false, defaultValue: false },
];

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
 * Creates the `cargos` collection when it is missing and adds `rows` generated items. The rows are made by
 * the server (`generate_series`), so nothing but the batch size crosses the wire; each batch is its own
 * statement and commits on its own, so progress is real and an interruption keeps whole batches.
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
  const cargos =
    (await catalog.refresh()).collections.get(CARGOS_COLLECTION) ??
    (await editor.createCollection(CARGOS_COLLECTION, CARGOS_FIELDS));
  const db = userTablesDatabase(orm);
  const table = sql.id(catalog.schema, CARGOS_COLLECTION);
  let inserted = 0;
  while (inserted < options.rows) {
    const count = Math.min(batchSize, options.rows - inserted);
    await sql`insert into ${table} (id, date_created, date_updated, description, temperature, is_deleted)
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
        random() < 0.1
      -- A subquery with a volatile output is not flattened: each row draws its own creation time once.
      from (select g, date_trunc('second', localtimestamp - random() * interval '365 days') as created
        from generate_series(1, ${count}::int) as g) as t`.execute(db);
    inserted += count;
    options.onProgress?.(inserted, options.rows);
  }
  return cargos;
}
