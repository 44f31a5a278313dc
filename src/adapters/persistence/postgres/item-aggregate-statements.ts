import { type RawBuilder, sql } from 'kysely';
import type { ItemAggregateRequest } from '../../../application/ports/item-store.ts';
import {
  type AggregateTerm,
  aggregateResultField,
  answerLayout,
  DATE_PART_FIELD,
  type DatePart,
  type GroupTerm,
} from '../../../domain/query/aggregate-query.ts';
import type { CollectionSchema, FieldSchema } from '../../../domain/schema/collection-schema.ts';
import { comparable, conjunction, fieldOrThrow } from './filter-sql.ts';
import { jsonValueOf } from './json-value-sql.ts';
import { columnOf, type RowScope, tableOf, topScope } from './row-scope.ts';

/** The groups as JSON array text, null when `bytes` (its size) is over the budget. */
export type AggregateRow = { items: string | null; bytes: string };

/** EXTRACT's field names; `weekday` is Directus's name for DOW (0 = Sunday). */
const EXTRACT_FIELD: Readonly<Record<DatePart, string>> = {
  year: 'year',
  month: 'month',
  week: 'week',
  day: 'day',
  weekday: 'dow',
  hour: 'hour',
  minute: 'minute',
  second: 'second',
};

/**
 * One statement: the visible, filtered rows grouped and aggregated, the groups sorted and paged, each
 * formatted as a JSON object by PostgreSQL, and the array measured against the byte budget as a list
 * page is (item-read-statements.ts): `bytes` always, the text only when it fits.
 *
 * The innermost level groups, sorts and pages on the raw values (columns `g<i>` and `a<i>`), so that
 * ordering sees numbers and instants, not their JSON text; the next formats the page only.
 */
export function itemAggregateQuery(request: ItemAggregateRequest, schema: string): RawBuilder<AggregateRow> {
  const { collection } = request;
  const scope = topScope(schema);
  const columns = [
    ...request.groupBy.map(
      (term, index) => sql`${groupValue(term, collection, scope)} as ${sql.id(`g${index}`)}`,
    ),
    ...request.aggregates.map(
      (term, index) => sql`${aggregateValue(term, collection, scope)} as ${sql.id(`a${index}`)}`,
    ),
  ];
  const groupBy =
    request.groupBy.length === 0
      ? sql``
      : sql`group by ${sql.join(request.groupBy.map((_, index) => sql.raw(String(index + 1))))}`;
  const orderBy =
    request.sort.length === 0
      ? sql``
      : sql`order by ${sql.join(
          request.sort.map(({ target, direction }) => {
            const column = sql.id(`${target.kind === 'group' ? 'g' : 'a'}${target.index}`);
            return sql`${column} ${direction === 'desc' ? sql`desc` : sql`asc`}`;
          }),
        )}`;
  const groups = sql`select ${sql.join(columns)}
    from ${tableOf(scope, collection.name)} ${conjunction([request.visible, request.filter], collection, scope)}
    ${groupBy} ${orderBy}
    ${request.limit === null ? sql`` : sql`limit ${request.limit}`} offset ${request.offset}`;
  const maxBytes = sql`${request.maxBytes ?? Number.MAX_SAFE_INTEGER}::int8`;
  // The same measuring as a list page: `through` is the size of `[` and the objects so far with commas.
  return sql<AggregateRow>`select
      case when coalesce(max(through), 1) + 1 <= ${maxBytes}
        then '[' || coalesce(string_agg(json, ',') filter (where through + 1 <= ${maxBytes}), '') || ']'
      end as items,
      coalesce(max(through), 1) + 1 as bytes
    from (select json, sum(octet_length(json) + 1) over (rows between unbounded preceding and current row) as through
      from (select row_to_json(item.*)::text as json
        from (select ${answer(request)} from (${groups}) as grouped) as item) as formatted) as measured`;
}

/** The answer object's members over `grouped`: the groupBy keys, then one member per function. */
function answer(request: ItemAggregateRequest): RawBuilder<unknown> {
  const { collection } = request;
  const members = request.groupBy.map((term, index) => {
    const field = term.part === null ? fieldOrThrow(collection, term.field) : DATE_PART_FIELD;
    return sql`${jsonValueOf(field, sql.id('grouped', `g${index}`))} as ${sql.id(term.key)}`;
  });
  for (const { fn, terms } of answerLayout(request.aggregates)) {
    const results = terms.map((index) => {
      const term = request.aggregates[index]!;
      const field = term.field === null ? null : fieldOrThrow(collection, term.field);
      const value = jsonValueOf(aggregateResultField(term, field), sql.id('grouped', `a${index}`));
      return { term, value };
    });
    const single = results[0]!;
    if (single.term.field === null) {
      members.push(sql`${single.value} as ${sql.id(fn)}`);
    } else {
      const fields = results.map(({ term, value }) => sql`${value} as ${sql.id(term.field!)}`);
      members.push(
        sql`(select row_to_json(result.*) from (select ${sql.join(fields)}) as result) as ${sql.id(fn)}`,
      );
    }
  }
  return sql.join(members);
}

/**
 * A groupBy entry's value: the column as it compares (an enum as its label's text, so groups order as
 * text), or an integer date part — in UTC for timestamptz, null for ±infinity (which has no parts).
 */
function groupValue(term: GroupTerm, collection: CollectionSchema, scope: RowScope): RawBuilder<unknown> {
  const field = fieldOrThrow(collection, term.field);
  if (term.part === null) return comparable(field, scope);
  const column = columnOf(scope, field.name);
  const source = field.type === 'dateTime' ? sql`(${column} at time zone 'UTC')` : column;
  const part = sql`extract(${sql.raw(EXTRACT_FIELD[term.part])} from ${source})`;
  // Seconds keep their fraction in EXTRACT; Directus's second() is the whole second.
  const whole = term.part === 'second' ? sql`floor(${part})::int4` : sql`${part}::int4`;
  return field.type === 'time' ? whole : sql`case when isfinite(${column}) then ${whole} end`;
}

/**
 * An aggregate's SQL, of the type its result field says (aggregateResultField): counts int8; sums of
 * integers and decimals numeric, of floats float8 (a real column is summed as double, as the in-memory
 * twin does); averages float8; min and max of booleans through bool_and/bool_or, of uuids through their
 * text (the same order), of the rest as the column compares.
 */
function aggregateValue(
  term: AggregateTerm,
  collection: CollectionSchema,
  scope: RowScope,
): RawBuilder<unknown> {
  if (term.field === null) return sql`count(*)`;
  const field = fieldOrThrow(collection, term.field);
  const column = columnOf(scope, field.name);
  switch (term.fn) {
    case 'count':
    case 'countAll':
      return sql`count(${column})`;
    case 'countDistinct':
      return sql`count(distinct ${comparable(field, scope)})`;
    case 'sum':
      return sql`sum(${numeric(field, scope)})`;
    case 'sumDistinct':
      return sql`sum(distinct ${numeric(field, scope)})`;
    case 'avg':
      return sql`avg(${numeric(field, scope)})::float8`;
    case 'avgDistinct':
      return sql`avg(distinct ${numeric(field, scope)})::float8`;
    case 'min':
    case 'max':
      return extreme(term.fn, field, scope);
  }
}

function numeric(field: FieldSchema, scope: RowScope): RawBuilder<unknown> {
  const column = columnOf(scope, field.name);
  return field.type === 'float' ? sql`${column}::float8` : sql`${column}::numeric`;
}

function extreme(fn: 'min' | 'max', field: FieldSchema, scope: RowScope): RawBuilder<unknown> {
  const column = columnOf(scope, field.name);
  if (field.type === 'boolean') return fn === 'min' ? sql`bool_and(${column})` : sql`bool_or(${column})`;
  if (field.type === 'uuid') return sql`${sql.raw(fn)}(${column}::text)::uuid`;
  return sql`${sql.raw(fn)}(${comparable(field, scope)})`;
}
