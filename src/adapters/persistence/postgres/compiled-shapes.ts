import { createHash } from 'node:crypto';
import {
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import type {
  ItemGetRequest,
  ItemKeysRequest,
  ItemListRequest,
  NestedRead,
  SelectedField,
  SortKey,
} from '../../../application/ports/item-store.ts';
import type { BoundFilterNode } from '../../../domain/query/filter.ts';
import { collectionId } from './collection-ids.ts';
import { filterShape } from './filter-sql.ts';
import { itemGetQuery, itemKeysQuery, itemListQuery } from './item-read-statements.ts';
import { hopShape } from './relational-hop-sql.ts';

/**
 * A read statement ready to run: SQL text compiled once per request shape, the request's values, and the
 * name it is prepared under (null when it must not be: see `CompiledShapes.compile`).
 */
export type ShapeStatement = {
  readonly name: string | null;
  readonly text: string;
  readonly values: unknown[];
};

type Compiled = { readonly name: string | null; readonly text: string };

/** Distinct shapes kept compiled: a few hundred bytes of SQL text each, for a flat read. */
const MAX_SHAPES = 1000;

/**
 * The characters of shape keys and SQL text kept in all. A read across relations (`*.*.*` on a collection
 * with many relations) compiles to a statement of a size the caller chooses, so counting shapes alone would
 * not bound the memory they hold; a statement larger than this is built per request, never kept or prepared.
 */
const MAX_SHAPE_CHARS = 8_000_000;

/**
 * A request's shape is everything that decides its SQL text and nothing else: the collection as the
 * schema snapshot describes it (by object identity: a refreshed schema is a new object, so the shapes of
 * the old one are never used again and age out), the PostgreSQL schema, the selected fields (with a json
 * path's key and length) and their masks, the caller's rule and filter apart from their values, a keyset
 * cursor's condition and the fields of the last row it asks for, the sort, whether there is a limit, and the counts asked (the estimates are
 * statements of their own). A rule edited by an administrator is a new filter tree: same structure, same shape with
 * new values; new structure, a new shape.
 *
 * Walking the request for its key also collects its values in the order the statement binds them, so a
 * request the cache knows costs one walk and no SQL building. The first request of each shape is built
 * with the statements of item-read-statements.ts; its values must equal the walk's, else the shape is not
 * trusted (never cached or prepared) and every such request is built in full, as before this cache.
 */
export class CompiledShapes {
  private readonly shapes = new LRUCache<string, Compiled>({
    max: MAX_SHAPES,
    maxSize: MAX_SHAPE_CHARS,
    sizeCalculation: (compiled, shape) => shape.length + compiled.text.length,
  });

  list(request: ItemListRequest, schema: string): ShapeStatement {
    const key = ['L', schema, String(collectionId(request.collection))];
    const values: unknown[] = [];
    const budget = request.maxBytes ?? Number.MAX_SAFE_INTEGER;
    const visibleValues: unknown[] = [];
    optionalFilter(request.visible, key, visibleValues);
    const filterValues: unknown[] = [];
    optionalFilter(request.filter, key, filterValues);
    if (request.count.total) values.push(...visibleValues);
    if (request.count.filtered) values.push(...visibleValues, ...filterValues);
    values.push(budget, budget);
    const lastRow = request.lastRowFields && request.limit !== null ? request.lastRowFields : null;
    if (lastRow) {
      values.push(request.limit);
      key.push('last', String(lastRow.length), ...lastRow.map((field) => `${field.length}:${field}`));
    } else key.push('-');
    selection(request.select, key, values);
    values.push(...visibleValues, ...filterValues);
    optionalFilter(request.after ?? null, key, values);
    sortShape(request.sort, key, values);
    if (request.limit !== null) values.push(request.limit);
    values.push(request.offset);
    key.push(
      request.limit === null ? 'all' : 'limit',
      request.count.total ? 'total' : '',
      request.count.filtered ? 'filtered' : '',
    );
    return this.statement(key, values, () => itemListQuery(request, schema));
  }

  get(request: ItemGetRequest, schema: string): ShapeStatement {
    const key = ['G', schema, String(collectionId(request.collection))];
    const values: unknown[] = [request.maxBytes ?? Number.MAX_SAFE_INTEGER];
    selection(request.select, key, values);
    values.push(request.id);
    optionalFilter(request.visible, key, values);
    return this.statement(key, values, () => itemGetQuery(request, schema));
  }

  getMany(request: ItemKeysRequest, schema: string): ShapeStatement {
    const key = ['K', schema, String(collectionId(request.collection))];
    const keys = [...request.keys];
    const values: unknown[] = [request.maxBytes ?? Number.MAX_SAFE_INTEGER, keys];
    selection(request.select, key, values);
    values.push(keys);
    optionalFilter(request.visible, key, values);
    return this.statement(key, values, () => itemKeysQuery(request, schema));
  }

  private statement(key: string[], values: unknown[], build: () => RawBuilder<unknown>): ShapeStatement {
    const shape = key.join('\u0000');
    const known = this.shapes.get(shape);
    if (known) return { name: known.name, text: known.text, values };
    const built = build().compile(compiler);
    if (!sameValues(built.parameters, values))
      return { name: null, text: built.sql, values: [...built.parameters] };
    const compiled = { name: statementName(shape, built), text: built.sql };
    this.shapes.set(shape, compiled);
    // Too large to keep: not prepared either, so that no connection holds it on the server.
    if (!this.shapes.has(shape)) return { name: null, text: built.sql, values };
    return { ...compiled, values };
  }
}

/** Kysely with a driver that never connects: it only compiles, with the compiler pg and PGlite both use. */
export const compiler = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/**
 * A prepared statement's name: short (PostgreSQL cuts names at 63 bytes) and a function of the shape and
 * its text, so a connection that prepared it for an older schema snapshot never runs it for a newer one.
 */
function statementName(shape: string, built: CompiledQuery): string {
  return `dg_${createHash('sha256').update(shape).update('\u0000').update(built.sql).digest('base64url').slice(0, 27)}`;
}

function optionalFilter(filter: BoundFilterNode | null, key: string[], values: unknown[]): void {
  if (filter === null) key.push('-');
  else filterShape(filter, key, values);
}

/**
 * A `json` selection adds its key (SQL text: the column's name in the answer) and its path's length to
 * the shape; the path itself is one bound text[] value, bound after the mask's values, as the statement's
 * `case when <mask> then <column> #> <path> end` reads them. A nested read's values also come after the
 * mask's (projection-sql.ts).
 */
function selection(select: ReadonlyArray<SelectedField>, key: string[], values: unknown[]): void {
  key.push(String(select.length));
  for (const { field, visibleWhen, json, nested } of select) {
    key.push(String(field.length), field);
    if (json) key.push('json', String(json.path.length), String(json.key.length), json.key);
    else if (nested) key.push('nested');
    else key.push('-');
    optionalFilter(visibleWhen, key, values);
    if (json) values.push([...json.path]);
    if (nested) nestedShape(nested, key, values);
  }
}

/**
 * A nested read: its hop (the related collection by identity, the joined columns), its own selection and
 * rule and, one-to-many, whether it answers keys, its filter, sort, whether it has a limit; values in the
 * order of projection-sql.ts's `nestedReadSql`.
 */
function nestedShape(nested: NestedRead, key: string[], values: unknown[]): void {
  hopShape(nested.hop, key);
  if (nested.hop.direction === 'many-to-one') {
    selection(nested.select, key, values);
    optionalFilter(nested.visible, key, values);
    return;
  }
  if (nested.keysOnly) key.push('keys');
  else {
    key.push('rows');
    selection(nested.select, key, values);
  }
  optionalFilter(nested.visible, key, values);
  optionalFilter(nested.filter ?? null, key, values);
  sortShape(nested.sort ?? [], key, values);
  if (nested.limit === undefined || nested.limit === null) key.push('all');
  else {
    key.push('limit');
    values.push(nested.limit);
  }
  values.push(nested.offset ?? 0);
}

/**
 * The sort keys with their hops. A key through hops binds the rules of the hops innermost first, as the
 * nested subqueries of order-by-sql.ts read them.
 */
function sortShape(sort: ReadonlyArray<SortKey>, key: string[], values: unknown[]): void {
  key.push(String(sort.length));
  for (const { field, direction, through } of sort) {
    key.push(String(field.length), field, direction, String(through?.length ?? 0));
    if (!through) continue;
    for (const { hop } of through) hopShape(hop, key);
    for (let index = through.length - 1; index >= 0; index--) {
      optionalFilter(through[index]!.visible, key, values);
    }
  }
}

function sameValues(built: ReadonlyArray<unknown>, walked: ReadonlyArray<unknown>): boolean {
  return built.length === walked.length && built.every((value, index) => sameValue(value, walked[index]));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return sameValues(a, b);
  return Object.is(a, b);
}
