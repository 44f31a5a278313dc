import { type Kysely, sql } from 'kysely';

/**
 * The columns behind a constraint or index a database error names, from the catalog: error messages and
 * their `detail` are localized and print expressions, the catalog is exact. Empty when the relation or
 * the name no longer exists, or for expression-only keys. Only consulted on the error path, after the
 * failed transaction has ended (an aborted transaction answers no query).
 */

/**
 * The key columns of an index, in key order. A unique violation (23505) names the index that refused the
 * row — for a primary key or unique constraint, the constraint's own index of the same name.
 */
export async function indexColumns(
  db: Kysely<unknown>,
  schema: string,
  table: string,
  index: string,
): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select a.attname::text as name
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    cross join lateral unnest(x.indkey::int2[]) with ordinality as k(attnum, position)
    join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum
    where x.indrelid = to_regclass(format('%I.%I', ${schema}::text, ${table}::text)) and i.relname = ${index}::text
    order by k.position`.execute(db);
  return rows.map((row) => row.name);
}

/** The columns a table constraint (check, foreign key) is declared on, in declaration order. */
export async function constraintColumns(
  db: Kysely<unknown>,
  schema: string,
  table: string,
  constraint: string,
): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select a.attname::text as name
    from pg_constraint c
    cross join lateral unnest(c.conkey) with ordinality as k(attnum, position)
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
    where c.conrelid = to_regclass(format('%I.%I', ${schema}::text, ${table}::text)) and c.conname = ${constraint}::text
    order by k.position`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * The table a foreign key refers to and its columns, in the order of the constraint's own columns; null
 * when the constraint is gone or is no foreign key.
 */
export async function referencedKey(
  db: Kysely<unknown>,
  schema: string,
  table: string,
  constraint: string,
): Promise<{ schema: string; table: string; columns: string[] } | null> {
  const { rows } = await sql<{ schema: string; table: string; name: string }>`select
      n.nspname::text as schema, t.relname::text as table, a.attname::text as name
    from pg_constraint c
    join pg_class t on t.oid = c.confrelid
    join pg_namespace n on n.oid = t.relnamespace
    cross join lateral unnest(c.confkey) with ordinality as k(attnum, position)
    join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum
    where c.conrelid = to_regclass(format('%I.%I', ${schema}::text, ${table}::text)) and c.conname = ${constraint}::text
      and c.contype = 'f'
    order by k.position`.execute(db);
  const first = rows[0];
  return first ? { schema: first.schema, table: first.table, columns: rows.map((row) => row.name) } : null;
}

/**
 * The columns of a table the database fills whatever a write says: identities `generated always` and
 * generated columns. A write naming one fails with 428C9, whose report names no column.
 */
export async function generatedAlwaysColumns(
  db: Kysely<unknown>,
  schema: string,
  table: string,
): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select a.attname::text as name
    from pg_attribute a
    where a.attrelid = to_regclass(format('%I.%I', ${schema}::text, ${table}::text)) and a.attnum > 0
      and not a.attisdropped and (a.attidentity = 'a' or a.attgenerated <> '')
    order by a.attnum`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * The columns of a table whose type is a domain. A domain's check (23514) reports the domain, not the
 * column that holds it. (A domain over a domain, or an array of one, is a type the API does not write.)
 */
export async function domainColumns(
  db: Kysely<unknown>,
  table: { schema: string; name: string },
  domain: { schema: string; name: string },
): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select a.attname::text as name
    from pg_attribute a
    where a.attrelid = to_regclass(format('%I.%I', ${table.schema}::text, ${table.name}::text)) and a.attnum > 0
      and not a.attisdropped
      and a.atttypid = to_regtype(format('%I.%I', ${domain.schema}::text, ${domain.name}::text))
    order by a.attnum`.execute(db);
  return rows.map((row) => row.name);
}
