import type { CollectionSchema, ElementSchema } from '../../src/domain/schema/collection-schema.ts';
import { field } from './cargos-schema.ts';

/**
 * Tables the API cannot create but finds in existing databases: arrays of every modelled element type,
 * an enum and an array of it, and a view over them. The same tables twice: as PostgreSQL DDL (in a given
 * schema) and as the schemas introspection makes of them, which the in-memory twin registers.
 */
export const MOODS = ['sad', 'ok', 'happy'] as const;

export const EXISTING_TABLES_DDL = (schema: string) => `
  create type ${schema}.mood as enum ('sad', 'ok', 'happy');
  create table ${schema}.tagged (
    id integer primary key,
    tags text[],
    codes varchar(3)[],
    counts int4[],
    bigs int8[],
    prices numeric(10,2)[],
    flags bool[],
    keys uuid[],
    instants timestamptz[],
    days date[],
    moods ${schema}.mood[],
    mood ${schema}.mood
  );
  create view ${schema}.happy_tagged as select id, tags, mood from ${schema}.tagged where mood = 'happy';
`;

const element = (type: ElementSchema['type'], dbType: string, rest: Partial<ElementSchema> = {}) => ({
  type,
  dbType,
  maxLength: null,
  ...rest,
});

const arrayOf = (name: string, item: ElementSchema) =>
  field(name, 'array', `${item.dbType}[]`, { element: item });

const ID = field('id', 'integer', 'integer', {
  nullable: false,
  isPrimaryKey: true,
  isUnique: true,
});
const TAGS = arrayOf('tags', element('text', 'text'));
const MOOD = field('mood', 'string', 'mood', { choices: MOODS });

export const EXISTING_TABLES: ReadonlyArray<CollectionSchema> = [
  {
    name: 'happy_tagged',
    primaryKey: null,
    readOnly: true,
    fields: [{ ...ID, nullable: true, isPrimaryKey: false, isUnique: false }, TAGS, MOOD],
  },
  {
    name: 'tagged',
    primaryKey: 'id',
    fields: [
      ID,
      TAGS,
      arrayOf('codes', element('string', 'character varying(3)', { maxLength: 3 })),
      arrayOf('counts', element('integer', 'integer')),
      arrayOf('bigs', element('bigInteger', 'bigint')),
      arrayOf('prices', element('decimal', 'numeric(10,2)')),
      arrayOf('flags', element('boolean', 'boolean')),
      arrayOf('keys', element('uuid', 'uuid')),
      arrayOf('instants', element('dateTime', 'timestamp with time zone')),
      arrayOf('days', element('date', 'date')),
      arrayOf('moods', element('string', 'mood', { choices: MOODS })),
      MOOD,
    ],
  },
];

/** What a test may compare between introspection and the registered schemas (SQL spellings of enums differ). */
export function describedFields(collection: CollectionSchema) {
  return collection.fields.map((field) => ({
    name: field.name,
    type: field.type,
    choices: field.choices,
    element: field.element && {
      type: field.element.type,
      maxLength: field.element.maxLength,
      choices: field.element.choices,
    },
    isPrimaryKey: field.isPrimaryKey,
  }));
}
