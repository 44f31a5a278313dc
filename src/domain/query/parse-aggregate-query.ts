import type { CollectionSchema, FieldSchema, SchemaSnapshot } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import { fitsIdentifier } from '../schema/identifier-bytes.ts';
import {
  AGGREGATE_FUNCTIONS,
  type AggregateFunction,
  type AggregateOrder,
  type AggregateQuery,
  type AggregateTerm,
  DATE_PART_TYPES,
  DATE_PARTS,
  type DatePart,
  type GroupTerm,
  NUMERIC_TYPES,
} from './aggregate-query.ts';
import type { QueryWitness } from './hop-of.ts';
import { describeInput, invalidQuery } from './invalid-query.ts';
import { isSortable } from './operator-support.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from './parse-item-query.ts';

/** The list parameters that mean the same on an aggregate: they pick the rows, then page the groups. */
const SHARED_PARAMETERS = ['filter', 'search', 'limit', 'offset', 'page'] as const;

/**
 * List parameters that have no meaning on groups. Refused rather than ignored: `fields`, `deep` and
 * `alias` shape items, which groups are not, and `meta` and `after` count and page rows (docs/api.md §4b).
 */
const REFUSED_PARAMETERS = ['fields', 'meta', 'after', 'deep', 'alias'] as const;

/** Aggregates and groupBy entries in one query, at most: as many as a filter's conditions (docs/api.md §4a). */
export const MAX_AGGREGATE_TERMS = 500;

const DATE_PART_CALL = /^([A-Za-z]+)\((.*)\)$/;

/**
 * Parses `aggregate` and `groupBy` (docs/api.md §4b) with `filter`, `search` and the paging parameters
 * of a list, and `sort` over the groupBy entries and the aggregates asked for. Every refusal is
 * INVALID_QUERY naming what is wrong. With `schema`, `filter` may cross relations, as a list's may
 * (`witness` told of each relation crossed and each field whose type the parse looks at).
 */
export function parseAggregateQuery(
  raw: RawItemQuery,
  collection: CollectionSchema,
  limits: QueryLimits,
  schema?: SchemaSnapshot,
  witness?: QueryWitness,
): AggregateQuery {
  for (const name of REFUSED_PARAMETERS) {
    if (param(raw, name) !== undefined) {
      throw invalidQuery(`The "${name}" parameter cannot be combined with "aggregate" or "groupBy".`, {
        reason: 'UNSUPPORTED_PARAMETER',
      });
    }
  }
  const shared: Record<string, unknown> = {};
  for (const name of SHARED_PARAMETERS) {
    if (param(raw, name) !== undefined) shared[name] = param(raw, name);
  }
  const rows = parseItemQuery(shared, collection, limits, schema, witness);
  const aggregates = parseAggregates(param(raw, 'aggregate'), collection, witness);
  const groupBy = parseGroupBy(param(raw, 'groupBy'), collection, aggregates, witness);
  if (aggregates.length + groupBy.length > MAX_AGGREGATE_TERMS) {
    throw invalidQuery(`At most ${MAX_AGGREGATE_TERMS} aggregates and groupBy entries in one query.`, {
      reason: 'INVALID_VALUE',
    });
  }
  if (aggregates.length === 0 && groupBy.length === 0) {
    throw invalidQuery('"aggregate" names no function and there is no "groupBy".', {
      reason: 'INVALID_VALUE',
    });
  }
  return {
    aggregates,
    groupBy,
    sort: parseSort(param(raw, 'sort'), aggregates, groupBy),
    filter: rows.filter,
    search: rows.search,
    limit: rows.limit,
    offset: rows.offset,
  };
}

function param(raw: RawItemQuery, name: string): unknown {
  return Object.hasOwn(raw, name) ? raw[name] : undefined;
}

/**
 * `aggregate`: an object of function → fields, as the bracket form (`aggregate[avg]=a,b`,
 * `aggregate[avg][]=a`) or JSON (`aggregate={"avg":["a"]}`) gives it; fields as a comma list or an array.
 */
function parseAggregates(
  raw: unknown,
  collection: CollectionSchema,
  witness: QueryWitness | undefined,
): AggregateTerm[] {
  if (raw === undefined) return [];
  const object = typeof raw === 'string' ? parseJsonObject(raw) : raw;
  if (typeof object !== 'object' || object === null || Array.isArray(object)) {
    throw invalidQuery('"aggregate" must be an object of functions and their fields.', {
      reason: 'INVALID_VALUE',
    });
  }
  const terms: AggregateTerm[] = [];
  for (const [name, fields] of Object.entries(object)) {
    if (!isAggregateFunction(name)) {
      throw invalidQuery(
        `Unknown aggregate function ${describeInput(name)}; use one of ${AGGREGATE_FUNCTIONS.join(', ')}.`,
        { reason: 'UNKNOWN_OPERATOR' },
      );
    }
    const entries = listOf(`aggregate[${name}]`, fields);
    if (entries.includes('*') && entries.some((entry) => entry !== '*')) {
      throw invalidQuery(`"aggregate[${name}]" mixes "*" with fields; their answers would share a key.`, {
        reason: 'INVALID_VALUE',
      });
    }
    for (const entry of new Set(entries)) terms.push(aggregateTerm(name, entry, collection, witness));
  }
  return terms;
}

function parseJsonObject(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidQuery('"aggregate" is not valid JSON.', { reason: 'INVALID_VALUE' });
  }
}

function isAggregateFunction(name: string): name is AggregateFunction {
  return (AGGREGATE_FUNCTIONS as ReadonlyArray<string>).includes(name);
}

/** Which functions take which fields: `*` counts rows; sums and averages need numbers; min, max and distinct counts an order. */
function aggregateTerm(
  fn: AggregateFunction,
  entry: string,
  collection: CollectionSchema,
  witness: QueryWitness | undefined,
): AggregateTerm {
  if (entry === '*') {
    if (fn === 'count' || fn === 'countAll') return { fn, field: null };
    throw invalidQuery(`"${fn}" needs a field, not "*".`, { reason: 'INVALID_VALUE' });
  }
  if (fn === 'countAll') {
    throw invalidQuery('"countAll" counts rows: give it "*".', { reason: 'INVALID_VALUE' });
  }
  const field = knownField(`aggregate[${fn}]`, entry, collection, witness);
  const fits =
    fn === 'count' ||
    (fn.startsWith('sum') || fn.startsWith('avg') ? NUMERIC_TYPES.has(field.type) : isSortable(field.type));
  if (!fits) {
    throw invalidQuery(`"${fn}" does not apply to field "${field.name}" (${field.type}).`, {
      field: field.name,
      reason: 'INVALID_VALUE',
    });
  }
  return { fn, field: field.name };
}

/** `groupBy`: fields and date parts (`year(date_created)`), as a comma list or repeated. */
function parseGroupBy(
  raw: unknown,
  collection: CollectionSchema,
  aggregates: ReadonlyArray<AggregateTerm>,
  witness: QueryWitness | undefined,
): GroupTerm[] {
  if (raw === undefined) return [];
  const terms: GroupTerm[] = [];
  const functions = new Set(aggregates.map((term) => term.fn));
  for (const entry of listOf('groupBy', raw)) {
    const term = groupTerm(entry, collection, witness);
    if (terms.some((known) => known.key === term.key)) {
      throw invalidQuery(`"groupBy" names ${describeInput(entry)} twice.`, { reason: 'INVALID_VALUE' });
    }
    if (functions.has(term.key as AggregateFunction)) {
      throw invalidQuery(`"groupBy" entry ${describeInput(entry)} answers under the aggregate's key.`, {
        reason: 'INVALID_VALUE',
      });
    }
    if (!fitsIdentifier(term.key)) {
      throw invalidQuery(`"groupBy" entry ${describeInput(entry)} answers under too long a key.`, {
        reason: 'INVALID_VALUE',
      });
    }
    terms.push(term);
  }
  return terms;
}

function groupTerm(
  entry: string,
  collection: CollectionSchema,
  witness: QueryWitness | undefined,
): GroupTerm {
  const call = DATE_PART_CALL.exec(entry);
  if (!call) {
    const field = knownField('groupBy', entry, collection, witness);
    if (!isSortable(field.type)) {
      throw invalidQuery(`Field "${field.name}" (${field.type}) cannot be grouped by.`, {
        field: field.name,
        reason: 'INVALID_VALUE',
      });
    }
    return { field: field.name, part: null, key: field.name };
  }
  const part = call[1]!;
  if (!(DATE_PARTS as ReadonlyArray<string>).includes(part)) {
    throw invalidQuery(
      `Unknown function ${describeInput(part)} in "groupBy"; use ${DATE_PARTS.join(', ')}.`,
      {
        reason: 'UNKNOWN_OPERATOR',
      },
    );
  }
  const field = knownField('groupBy', call[2]!.trim(), collection, witness);
  if (!DATE_PART_TYPES[part as DatePart].has(field.type)) {
    throw invalidQuery(`"${part}" does not apply to field "${field.name}" (${field.type}).`, {
      field: field.name,
      reason: 'INVALID_VALUE',
    });
  }
  return { field: field.name, part: part as DatePart, key: `${field.name}_${part}` };
}

/**
 * `sort`: groupBy entries (as written, or by their answer key) and aggregates asked for — `count` /
 * `countAll` for rows, `<function>.<field>` for the others (Directus's spellings); `-` for descending.
 * Ties end on the remaining groupBy entries, ascending, so pages of groups never overlap.
 */
function parseSort(
  raw: unknown,
  aggregates: ReadonlyArray<AggregateTerm>,
  groupBy: ReadonlyArray<GroupTerm>,
): AggregateOrder[] {
  const sort: AggregateOrder[] = [];
  const seen = new Set<string>();
  for (const entry of raw === undefined ? [] : listOf('sort', raw)) {
    const descending = entry.startsWith('-');
    const name = descending ? entry.slice(1) : entry;
    const target = sortTarget(name, aggregates, groupBy);
    const identity = `${target.kind}:${target.index}`;
    if (seen.has(identity)) {
      throw invalidQuery(`${describeInput(name)} appears twice in "sort".`, { reason: 'INVALID_VALUE' });
    }
    seen.add(identity);
    sort.push({ target, direction: descending ? 'desc' : 'asc' });
  }
  groupBy.forEach((_, index) => {
    if (!seen.has(`group:${index}`)) sort.push({ target: { kind: 'group', index }, direction: 'asc' });
  });
  return sort;
}

function sortTarget(
  name: string,
  aggregates: ReadonlyArray<AggregateTerm>,
  groupBy: ReadonlyArray<GroupTerm>,
): AggregateOrder['target'] {
  const group = groupBy.findIndex(
    (term) => term.key === name || (term.part !== null && `${term.part}(${term.field})` === name),
  );
  if (group !== -1) return { kind: 'group', index: group };
  const dot = name.indexOf('.');
  const fn = dot === -1 ? name : name.slice(0, dot);
  const field = dot === -1 ? null : name.slice(dot + 1);
  const aggregate = aggregates.findIndex(
    (term) => term.fn === fn && (term.field === field || (field === '*' && term.field === null)),
  );
  if (aggregate !== -1) return { kind: 'aggregate', index: aggregate };
  const choices = [
    ...groupBy.map((term) => term.key),
    ...aggregates.map((term) => (term.field === null ? term.fn : `${term.fn}.${term.field}`)),
  ];
  throw invalidQuery(
    `Cannot sort by ${describeInput(name)}: sort by a "groupBy" entry or an aggregate asked for (here: ${choices.join(', ')}).`,
    { reason: 'UNKNOWN_FIELD' },
  );
}

/** `witness` is told of the field found, before its type is looked at. */
function knownField(
  parameter: string,
  name: string,
  collection: CollectionSchema,
  witness: QueryWitness | undefined,
): FieldSchema {
  const field = name.includes('.') ? undefined : fieldOf(collection, name);
  if (!field) {
    throw invalidQuery(`Unknown field ${describeInput(name)} in "${parameter}".`, {
      field: name.slice(0, 64),
      reason: 'UNKNOWN_FIELD',
    });
  }
  witness?.named(name, collection, name);
  return field;
}

/** A comma list, an array of them, or both; entries trimmed, none empty. */
function listOf(name: string, raw: unknown): string[] {
  const parts = Array.isArray(raw) ? raw : [raw];
  const entries: string[] = [];
  for (const part of parts) {
    if (typeof part !== 'string') {
      throw invalidQuery(`"${name}" must be a comma-separated list.`, { reason: 'INVALID_VALUE' });
    }
    for (const entry of part.split(',')) {
      const trimmed = entry.trim();
      if (trimmed === '') throw invalidQuery(`"${name}" has an empty entry.`, { reason: 'INVALID_VALUE' });
      entries.push(trimmed);
    }
  }
  if (entries.length === 0) throw invalidQuery(`"${name}" is empty.`, { reason: 'INVALID_VALUE' });
  return entries;
}
