import type { CollectionSchema, FieldSchema } from '../../src/domain/schema/collection-schema.ts';

type FieldOptions = Partial<Omit<FieldSchema, 'name' | 'type' | 'dbType'>>;

/** A column as introspection reports it; nullable, no default, not a key, unless said otherwise. */
export function field(
  name: string,
  type: FieldSchema['type'],
  dbType: string,
  options: FieldOptions = {},
): FieldSchema {
  return {
    name,
    type,
    dbType,
    nullable: true,
    defaultValue: null,
    isPrimaryKey: false,
    isUnique: false,
    hasDefault: false,
    maxLength: null,
    ...options,
  };
}

/**
 * The seed's sample collection (`id`, `date_created`, `date_updated`, `description`, `temperature`,
 * `is_deleted`) plus one column of every field type — and the int2 and `real` spellings, and a column
 * of a type we do not model — so every test can use one shared shape. The seed leaves `temperature`'s
 * type open; it is a nullable double here.
 */
export const cargosSchema: CollectionSchema = {
  name: 'cargos',
  primaryKey: 'id',
  fields: [
    field('id', 'uuid', 'uuid', { nullable: false, isPrimaryKey: true, isUnique: true }),
    field('date_created', 'timestamp', 'timestamp without time zone'),
    field('date_updated', 'timestamp', 'timestamp without time zone'),
    field('description', 'text', 'text'),
    field('temperature', 'float', 'double precision'),
    field('is_deleted', 'boolean', 'boolean', {
      nullable: false,
      defaultValue: 'false',
      hasDefault: true,
    }),
    field('code', 'string', 'character varying(32)', { maxLength: 32, isUnique: true }),
    field('crate_count', 'integer', 'integer'),
    field('pallets', 'integer', 'smallint'),
    field('serial_number', 'bigInteger', 'bigint'),
    field('weight_kg', 'float', 'real'),
    field('price', 'decimal', 'numeric(12,2)'),
    field('departed_at', 'dateTime', 'timestamp with time zone'),
    field('shipped_on', 'date', 'date'),
    field('pickup_time', 'time', 'time without time zone'),
    field('manifest', 'json', 'jsonb'),
    field('user_created', 'uuid', 'uuid'),
    field('tags', 'unknown', 'text[]'),
  ],
};

export const CARGO_IDS = {
  a: '0190a1b2-0000-7000-8000-000000000001',
  b: '0190a1b2-0000-7000-8000-000000000002',
  c: '0190a1b2-0000-7000-8000-000000000003',
  d: '0190a1b2-0000-7000-8000-000000000004',
} as const;

export const CARGO_USERS = {
  ada: '0190a1b2-0000-7000-8000-0000000000aa',
  bob: '0190a1b2-0000-7000-8000-0000000000bb',
} as const;

/**
 * Four cargos, as a client would write them, chosen so that every operator separates them: nulls,
 * an empty description, `%` and `_` in text, int8 beyond 2^53, numeric beyond a double's precision.
 */
export const cargoRows: ReadonlyArray<Readonly<Record<string, unknown>>> = [
  {
    id: CARGO_IDS.a,
    date_created: '2024-01-10T08:00:00',
    date_updated: null,
    description: 'Frozen fish, 100% fresh',
    temperature: -18.5,
    is_deleted: false,
    code: 'FISH_01',
    crate_count: 12,
    pallets: 2,
    serial_number: '9007199254740993',
    weight_kg: 1250.5,
    price: '12345678901.23',
    departed_at: '2024-01-10T07:00:00Z',
    shipped_on: '2024-01-10',
    pickup_time: '08:30:00',
    manifest: { items: ['cod', 'hake'], sealed: true },
    user_created: CARGO_USERS.ada,
    tags: '{cold,fish}',
  },
  {
    id: CARGO_IDS.b,
    date_created: '2024-02-29T12:30:15',
    date_updated: '2024-03-01T09:00:00',
    description: 'Bananas',
    temperature: 13,
    is_deleted: false,
    code: 'FRUIT-02',
    crate_count: 40,
    pallets: 8,
    serial_number: '42',
    weight_kg: 800,
    price: '19.99',
    departed_at: '2024-02-29T14:30:15+02:00',
    shipped_on: '2024-02-29',
    pickup_time: '12:00:00',
    manifest: ['bananas'],
    user_created: CARGO_USERS.bob,
    tags: null,
  },
  {
    id: CARGO_IDS.c,
    date_created: '2024-03-15T00:00:00',
    date_updated: null,
    description: '',
    temperature: null,
    is_deleted: true,
    code: null,
    crate_count: null,
    pallets: null,
    serial_number: null,
    weight_kg: null,
    price: null,
    departed_at: null,
    shipped_on: null,
    pickup_time: null,
    manifest: null,
    user_created: null,
    tags: null,
  },
  {
    id: CARGO_IDS.d,
    date_created: '2024-03-15T00:00:00.5',
    date_updated: null,
    description: null,
    temperature: 4,
    is_deleted: false,
    code: 'ÉCLAIRS',
    crate_count: 0,
    pallets: -1,
    serial_number: '-9223372036854775808',
    weight_kg: 0.25,
    price: '0.10',
    departed_at: '2024-03-14T23:00:00-01:00',
    shipped_on: '2024-03-15',
    pickup_time: '23:59:59.999999',
    manifest: 'fragile',
    user_created: CARGO_USERS.ada,
    tags: '{}',
  },
];
