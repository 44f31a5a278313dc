import type { ItemAggregateRequest } from '../../../application/ports/item-store.ts';
import {
  type AggregateTerm,
  aggregateResultField,
  answerLayout,
  DATE_PART_FIELD,
  type DatePart,
  type GroupTerm,
} from '../../../domain/query/aggregate-query.ts';
import { compareValues } from '../../../domain/query/compare-values.ts';
import { normalizeDecimal } from '../../../domain/query/decimal-text.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import { nonFiniteRank } from '../../../domain/query/non-finite-values.ts';
import { itemJson, valueJson } from '../../../domain/query/value-json.ts';
import type { CollectionSchema, FieldSchema } from '../../../domain/schema/collection-schema.ts';
import type { FieldType } from '../../../domain/schema/field-type.ts';
import { compareNullsLast } from './compare-nulls-last.ts';
import { arrayBytes, assertWithinBudget, fieldOrThrow } from './in-memory-item-json.ts';
import type { RelatedRows } from './in-memory-related-rows.ts';
import type { StoredRow } from './in-memory-schema.ts';

type Value = ScalarValue | null;
type Group = { readonly values: ReadonlyArray<Value>; readonly rows: StoredRow[] };
type Result = { readonly values: ReadonlyArray<Value>; readonly aggregates: ReadonlyArray<Value> };

/**
 * ItemStore.aggregate over in-memory rows, answering what the SQL statement answers
 * (item-aggregate-statements.ts): the same groups (nulls form one), results of the same types and
 * formats — sums of integers and decimals exact, averages as doubles — and PostgreSQL's order, nulls
 * last ascending and first descending.
 */
export function aggregateRows(
  rows: ReadonlyArray<StoredRow>,
  request: ItemAggregateRequest,
  related: RelatedRows,
): string {
  const { collection } = request;
  const selected = rows.filter(
    (row) =>
      related.matches(request.visible, row, collection) && related.matches(request.filter, row, collection),
  );
  const groupFields = request.groupBy.map((term) => groupField(term, collection));
  const results = groupsOf(selected, request.groupBy, groupFields).map(
    (group): Result => ({
      values: group.values,
      aggregates: request.aggregates.map((term) => aggregate(term, group.rows, collection)),
    }),
  );
  const resultFields = request.aggregates.map((term) =>
    aggregateResultField(term, term.field === null ? null : fieldOrThrow(collection, term.field)),
  );
  const ordered = [...results].sort((a, b) => {
    for (const { target, direction } of request.sort) {
      const [type, left, right] =
        target.kind === 'group'
          ? [groupFields[target.index]!.type, a.values[target.index]!, b.values[target.index]!]
          : [resultFields[target.index]!.type, a.aggregates[target.index]!, b.aggregates[target.index]!];
      const order = compareNullsLast(type, left ?? null, right ?? null);
      if (order !== 0) return direction === 'desc' ? -order : order;
    }
    return 0;
  });
  const end = request.limit === null ? undefined : request.offset + request.limit;
  const items = ordered.slice(request.offset, end).map((result) => {
    const members: Array<readonly [string, string]> = request.groupBy.map((term, index) => [
      term.key,
      valueJson(groupFields[index]!, result.values[index] ?? null),
    ]);
    for (const { fn, terms } of answerLayout(request.aggregates)) {
      const json = terms.map((index) => valueJson(resultFields[index]!, result.aggregates[index] ?? null));
      const first = request.aggregates[terms[0]!]!;
      members.push([
        fn,
        first.field === null
          ? json[0]!
          : itemJson(terms.map((index, position) => [request.aggregates[index]!.field!, json[position]!])),
      ]);
    }
    return itemJson(members);
  });
  assertWithinBudget(arrayBytes(items), request.maxBytes);
  return `[${items.join(',')}]`;
}

function groupField(term: GroupTerm, collection: CollectionSchema): FieldSchema {
  return term.part === null ? fieldOrThrow(collection, term.field) : DATE_PART_FIELD;
}

/** Without groupBy, one group of every row, even none (as SQL's aggregate without GROUP BY). */
function groupsOf(
  rows: ReadonlyArray<StoredRow>,
  groupBy: ReadonlyArray<GroupTerm>,
  fields: ReadonlyArray<FieldSchema>,
): Group[] {
  if (groupBy.length === 0) return [{ values: [], rows: [...rows] }];
  const groups = new Map<string, Group>();
  for (const row of rows) {
    const values = groupBy.map((term) => groupValue(term, row[term.field] ?? null));
    const identity = JSON.stringify(values.map((value, index) => identityOf(fields[index]!.type, value)));
    const known = groups.get(identity);
    if (known) known.rows.push(row);
    else groups.set(identity, { values, rows: [row] });
  }
  return [...groups.values()];
}

/**
 * What makes two values of a type one group (or one distinct value) in PostgreSQL: numbers by value
 * (decimal 1.10 = 1.1, float -0 = 0), everything else by its canonical text.
 */
function identityOf(type: FieldType, value: Value): string | null {
  if (value === null) return null;
  if (type === 'decimal' || type === 'bigInteger') return normalizeDecimal(String(value)) ?? String(value);
  if (typeof value === 'number') return String(value === 0 ? 0 : value);
  return String(value);
}

function groupValue(term: GroupTerm, value: Value): Value {
  if (term.part === null || value === null) return value;
  return datePart(term.part, String(value));
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;
const TIME = /(?:^|T)(\d{2}):(\d{2}):(\d{2})/;

/**
 * A date part of a canonical date, time, timestamp or timestamptz (stored in UTC, so its parts are UTC's).
 * `week` is the ISO 8601 week, `weekday` 0 for Sunday, as PostgreSQL's EXTRACT(WEEK / DOW).
 */
function datePart(part: DatePart, text: string): number | null {
  const date = DATE.exec(text);
  const time = TIME.exec(text);
  switch (part) {
    case 'year':
      return date ? Number(date[1]) : null;
    case 'month':
      return date ? Number(date[2]) : null;
    case 'day':
      return date ? Number(date[3]) : null;
    case 'weekday':
      return date ? utcDate(date).getUTCDay() : null;
    case 'week':
      return date ? isoWeek(utcDate(date)) : null;
    case 'hour':
      return time ? Number(time[1]) : null;
    case 'minute':
      return time ? Number(time[2]) : null;
    case 'second':
      return time ? Number(time[3]) : null;
  }
}

const DAY_MS = 86_400_000;

/** setUTCFullYear, not Date.UTC: the latter reads years 0–99 as 1900–1999. */
function utcDate(match: RegExpExecArray): Date {
  const date = new Date(0);
  date.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return date;
}

/** The ISO week: the week (Monday first) holding the year's first Thursday is week 1. */
function isoWeek(date: Date): number {
  const thursday = new Date(date.getTime() + (3 - ((date.getUTCDay() + 6) % 7)) * DAY_MS);
  const january1 = new Date(0);
  january1.setUTCFullYear(thursday.getUTCFullYear(), 0, 1);
  return Math.floor((thursday.getTime() - january1.getTime()) / DAY_MS / 7) + 1;
}

function aggregate(term: AggregateTerm, rows: ReadonlyArray<StoredRow>, collection: CollectionSchema): Value {
  if (term.field === null) return rows.length;
  const field = fieldOrThrow(collection, term.field);
  const present = rows.map((row) => row[field.name] ?? null).filter((value) => value !== null);
  const distinct = term.fn.endsWith('Distinct') ? distinctValues(field.type, present) : present;
  switch (term.fn) {
    case 'count':
    case 'countAll':
    case 'countDistinct':
      return distinct.length;
    case 'sum':
    case 'sumDistinct':
      return double(sum(field, distinct));
    case 'avg':
    case 'avgDistinct':
      return distinct.length === 0 ? null : double(Number(sum(field, distinct)) / distinct.length);
    case 'min':
    case 'max':
      return extreme(term.fn, field, present);
  }
}

/** A double as a float's canonical value: NaN and ±Infinity as PostgreSQL spells them, which §4 sends as strings. */
function double(value: Value): Value {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
}

function distinctValues(type: FieldType, values: ReadonlyArray<ScalarValue>): ScalarValue[] {
  const seen = new Map<string | null, ScalarValue>();
  for (const value of values) {
    const identity = identityOf(type, value);
    if (!seen.has(identity)) seen.set(identity, value);
  }
  return [...seen.values()];
}

/** Floats as doubles; integers and decimals exactly, as decimal text of the largest scale among them. */
function sum(field: FieldSchema, values: ReadonlyArray<ScalarValue>): Value {
  if (values.length === 0) return null;
  if (field.type === 'float') return values.reduce<number>((total, value) => total + Number(value), 0);
  const decimals = values.map((value) => normalizeDecimal(String(value)) ?? String(value));
  const nonFinite = nonFiniteSum(decimals);
  if (nonFinite !== null) return nonFinite;
  // A fold, not Math.max(...): spreading a large group's values would overflow the call stack.
  const scale = decimals.reduce((widest, text) => Math.max(widest, text.split('.')[1]?.length ?? 0), 0);
  const total = decimals.reduce((accumulated, text) => accumulated + scaled(text, scale), 0n);
  return decimalText(total, scale);
}

/**
 * A numeric sum that is no number, as PostgreSQL's: NaN when a NaN or both infinities are among the
 * values, else the infinity among them; null when every value is finite.
 */
function nonFiniteSum(decimals: ReadonlyArray<string>): string | null {
  const ranks = new Set(decimals.map(nonFiniteRank));
  if (ranks.has(2) || (ranks.has(1) && ranks.has(-1))) return 'NaN';
  if (ranks.has(1)) return 'Infinity';
  return ranks.has(-1) ? '-Infinity' : null;
}

function scaled(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const digits = BigInt(`${whole}${fraction.padEnd(scale, '0')}`);
  return negative ? -digits : digits;
}

function decimalText(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

function extreme(fn: 'min' | 'max', field: FieldSchema, values: ReadonlyArray<ScalarValue>): Value {
  let best: ScalarValue | null = null;
  for (const value of values) {
    const order = best === null ? 0 : compareValues(field.type, value, best);
    if (best === null || (fn === 'min' ? order < 0 : order > 0)) best = value;
  }
  return best;
}
