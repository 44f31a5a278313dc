import { characterCount } from '../character-count.ts';
import type { CollectionSchema, SchemaSnapshot } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import { crossesRelation } from './crosses-relation.ts';
import {
  DEFAULT_MAX_RELATIONAL_DEPTH,
  hopOf,
  type QueryWitness,
  type RelationalContext,
  witnessBelow,
} from './hop-of.ts';
import { describeInput, invalidQuery } from './invalid-query.ts';
import type { FieldSelection, ItemQuery, NestedPage, QuerySortField, SelectedName } from './item-query.ts';
import { isJsonCall, parseJsonSelection } from './json-path.ts';
import { isSortable } from './operator-support.ts';
import { parseFieldSelection } from './parse-field-selection.ts';
import { parseFilter } from './parse-filter.ts';
import type { RelationalHop } from './relational-hop.ts';

/** The query string as `qs` parsed it: strings, arrays of strings, nested objects (bracket form). */
export type RawItemQuery = Readonly<Record<string, unknown>>;

/**
 * `query.limitDefault` / `query.limitMax` (docs/api.md §8); -1 means "no limit". `maxRelationalDepth`
 * (`query.maxRelationalDepth`, default 3): the most relations one path of a query may cross.
 */
export type QueryLimits = {
  readonly limitDefault: number;
  readonly limitMax: number;
  readonly maxRelationalDepth?: number;
};

/** docs/api.md §4a. Counted in code points, so an emoji is one character as a user would count it. */
export const MAX_SEARCH_LENGTH = 256;

/**
 * Directus parameters we do not implement: `alias` (fields under other names) and `version` (a content
 * version, which datagate does not keep). Ignoring them would answer a different question than the one
 * asked, so they are refused; any other unknown parameter is ignored, since clients send extras
 * (`access_token`, `export`, cache busters).
 */
export const UNSUPPORTED_PARAMETERS = ['alias', 'version'] as const;

/** The options of a `deep[<relation>]` entry (Directus's names). */
const DEEP_OPTIONS = new Set(['_filter', '_sort', '_limit', '_offset']);

const META_VALUES = new Set([
  'total_count',
  'filter_count',
  'estimated_total_count',
  'estimated_filter_count',
  'next',
  '*',
]);
const INTEGER_TEXT = /^-?\d{1,15}$/;
/** What the server's cursors are made of (base64url); anything else is not one of them. */
const CURSOR_TEXT = /^[A-Za-z0-9_-]+$/;

/**
 * Parses the list/read parameters of docs/api.md §4 against a collection. Every refusal is INVALID_QUERY —
 * including a scalar parameter given twice (`limit=1&limit=2`), which `qs` turns into an array.
 *
 * With `schema`, the query may cross the relations it declares (nested `fields`, `deep`, filters and
 * sorts across relations); without, every path is refused as an unknown field. `witness` is told of each
 * relation a path crosses and each field whose type the parse looks at (see parse-as-caller.ts).
 */
export function parseItemQuery(
  raw: RawItemQuery,
  collection: CollectionSchema,
  limits: QueryLimits,
  schema?: SchemaSnapshot,
  witness?: QueryWitness,
): ItemQuery {
  for (const name of UNSUPPORTED_PARAMETERS) {
    if (param(raw, name) !== undefined) {
      throw invalidQuery(`The "${name}" parameter is not supported.`, {
        reason: 'UNSUPPORTED_PARAMETER',
        field: name,
      });
    }
  }
  const relations = schema && relationalContext(schema, limits, witness);
  const limit = parseLimit('limit', param(raw, 'limit'), limits);
  const after = parseAfter(param(raw, 'after'));
  if (after !== null && (param(raw, 'offset') !== undefined || param(raw, 'page') !== undefined)) {
    throw invalidQuery('Use either "after" or "offset"/"page", not both.', { reason: 'INVALID_VALUE' });
  }
  const selection = parseSelection(param(raw, 'fields'), param(raw, 'deep'), collection, limits, relations);
  const filter = parseOptionalFilter(param(raw, 'filter'), collection, relations);
  const sort = parseSort(param(raw, 'sort'), collection, relations);
  const relational =
    selection.relations !== undefined ||
    (filter !== null && crossesRelation(filter)) ||
    sort.some((entry) => entry.hops !== undefined);
  return {
    ...selection,
    filter,
    sort,
    limit,
    offset: parseOffset(param(raw, 'offset'), param(raw, 'page'), limit),
    after,
    search: parseSearch(param(raw, 'search')),
    meta: parseMeta(param(raw, 'meta')),
    ...(relational ? { relational } : {}),
  };
}

/** `fields` and `deep` together: `deep` pages the one-to-many relations `fields` expands. */
function parseSelection(
  rawFields: unknown,
  rawDeep: unknown,
  collection: CollectionSchema,
  limits: QueryLimits,
  relations: RelationalContext | undefined,
): FieldSelection {
  const fields = parseFields(rawFields, collection, relations);
  const deep = rawDeep === undefined ? undefined : parseDeep(rawDeep);
  if (!relations || (deep === undefined && !expandsAny(fields, collection, relations))) {
    if (deep !== undefined && Object.keys(deep).length > 0) {
      throw invalidQuery('"deep" needs "fields" expanding the relations it names.', {
        reason: 'INVALID_VALUE',
      });
    }
    return { fields: fields.length === 1 && fields[0] === '*' ? '*' : fields };
  }
  return parseFieldSelection(fields, collection, relations, deep, (options, hop, path) =>
    parseNestedPage(options, hop, limits, below(relations, path)),
  );
}

/** Whether `fields` names a path or a one-to-many alias (a loop: the flat path allocates nothing here). */
function expandsAny(
  fields: ReadonlyArray<SelectedName>,
  collection: CollectionSchema,
  relations: RelationalContext,
): boolean {
  for (const entry of fields) {
    if (typeof entry !== 'string' || entry === '*') continue;
    if (entry.includes('.')) return true;
    // A column is never a one-to-many alias (one-field-names.ts), so only other names are looked up.
    if (
      !fieldOf(collection, entry) &&
      hopOf(relations.schema, collection, entry)?.direction === 'one-to-many'
    ) {
      return true;
    }
  }
  return false;
}

const contexts = new WeakMap<SchemaSnapshot, RelationalContext>();

/** One context per snapshot (and depth setting), so that a flat query allocates none. */
function relationalContext(
  schema: SchemaSnapshot,
  limits: QueryLimits,
  witness: QueryWitness | undefined,
): RelationalContext {
  const maxHops = limits.maxRelationalDepth ?? DEFAULT_MAX_RELATIONAL_DEPTH;
  if (witness) return { schema, maxHops, witness };
  let context = contexts.get(schema);
  if (context?.maxHops !== maxHops) {
    context = { schema, maxHops };
    contexts.set(schema, context);
  }
  return context;
}

/** The context of the paths inside a related collection reached by `path` (a `deep` entry's filter and sort). */
function below(relations: RelationalContext, path: string): RelationalContext {
  const { witness } = relations;
  return witness ? { ...relations, witness: witnessBelow(witness, path) } : relations;
}

/** `deep`: JSON text or the bracket form's object. */
function parseDeep(raw: unknown): Readonly<Record<string, unknown>> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidQuery('"deep" is not valid JSON.', { reason: 'INVALID_VALUE' });
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidQuery('"deep" must be a JSON object, given once.', { reason: 'INVALID_VALUE' });
  }
  return value as Record<string, unknown>;
}

/** One one-to-many relation's page: `_filter`, `_sort`, `_limit`, `_offset`, with a list's defaults. */
function parseNestedPage(
  options: Readonly<Record<string, unknown>>,
  hop: RelationalHop,
  limits: QueryLimits,
  relations: RelationalContext,
): NestedPage {
  for (const name of Object.keys(options)) {
    if (!DEEP_OPTIONS.has(name)) {
      throw invalidQuery(`Unknown "deep" option ${describeInput(name)} on "${hop.key}".`, {
        reason: 'INVALID_VALUE',
      });
    }
  }
  const rawFilter = options._filter;
  const rawSort = options._sort;
  const rawOffset = options._offset;
  return {
    filter: rawFilter === undefined ? null : parseOptionalFilter(rawFilter, hop.collection, relations),
    sort: parseSort(rawSort, hop.collection, relations),
    limit: parseLimit('_limit', options._limit, limits),
    offset: rawOffset === undefined ? 0 : nonNegative('_offset', integerParam('_offset', rawOffset)),
  };
}

function nonNegative(name: string, value: number): number {
  if (value < 0) throw invalidQuery(`"${name}" must be 0 or more.`, { reason: 'INVALID_VALUE' });
  return value;
}

/** Own properties only: a parameter named like an Object.prototype member must not read the prototype. */
function param(raw: RawItemQuery, name: string): unknown {
  return Object.hasOwn(raw, name) ? raw[name] : undefined;
}

/**
 * `fields`: comma list or repeated parameter; `*` stands for every field the caller may read. Names given
 * beside `*` are kept: the caller asked for them by name, so they must be readable (see ItemQuery).
 * `json(field, path)` entries (their comma is not a separator) answer a value inside a json field under
 * Directus's key for it; two entries may not answer under the same key.
 */
function parseFields(
  raw: unknown,
  collection: CollectionSchema,
  relations: RelationalContext | undefined,
): ReadonlyArray<SelectedName> {
  if (raw === undefined) return ['*'];
  const selected: SelectedName[] = [];
  const names = new Set<string>();
  const keys = new Map<string, string>();
  for (const entry of listParam('fields', raw, { parenthesized: true })) {
    if (isJsonCall(entry)) {
      const json = parseJsonSelection(entry, collection, relations?.witness);
      const identity = `${json.field}\u0000${json.path.join('\u0000')}`;
      const known = keys.get(json.key);
      if (known === identity) continue;
      if (known !== undefined || fieldOf(collection, json.key)) {
        const clash = known === undefined ? 'a field of the same name' : 'another json() entry';
        throw invalidQuery(`${describeInput(entry)} answers under "${json.key}", as ${clash} does.`, {
          reason: 'INVALID_VALUE',
        });
      }
      keys.set(json.key, identity);
      selected.push(json);
    } else if (!names.has(entry)) {
      // Paths and one-to-many aliases are checked against the relations, in parse-field-selection.ts.
      if (
        entry !== '*' &&
        !fieldOf(collection, entry) &&
        !(relations && (entry.includes('.') || hopOf(relations.schema, collection, entry)))
      ) {
        assertField('fields', entry, collection);
      }
      names.add(entry);
      selected.push(entry);
    }
  }
  assertWithinMembers(selected, collection);
  return selected;
}

/**
 * The most members an item may answer: as many as a table may have columns. PostgreSQL lists at most 1,664
 * entries in a select, and each member is one; beyond, the statement fails (a 500 for 1,700 `json()`
 * entries in a SEARCH body, whose size the query string's length does not bound).
 */
const MAX_ANSWER_MEMBERS = 1600;

function assertWithinMembers(selected: ReadonlyArray<SelectedName>, collection: CollectionSchema) {
  const members = new Set<string>();
  for (const entry of selected) {
    if (typeof entry !== 'string') members.add(entry.key);
    else if (entry.startsWith('*')) for (const field of collection.fields) members.add(field.name);
    else members.add(entry.split('.')[0]!);
  }
  if (members.size > MAX_ANSWER_MEMBERS) {
    throw invalidQuery(
      `"fields" asks for ${members.size} members of an item; at most ${MAX_ANSWER_MEMBERS}.`,
      {
        reason: 'INVALID_VALUE',
      },
    );
  }
}

/** `filter`: JSON text or the bracket form's object; `{}` is no filter. */
function parseOptionalFilter(
  raw: unknown,
  collection: CollectionSchema,
  relations: RelationalContext | undefined,
) {
  if (raw === undefined) return null;
  if (typeof raw !== 'string' && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw invalidQuery('"filter" must be a JSON object, given once.', { reason: 'INVALID_VALUE' });
  }
  const filter = parseFilter(raw, collection, {}, relations);
  return filter.kind === 'and' && filter.nodes.length === 0 ? null : filter;
}

/**
 * `sort`: comma list, `-` prefix for descending. A field sorted twice is a mistake worth reporting. With
 * relations, a path through many-to-one relations (`-shipment.customer.name`) sorts by the related row's
 * field; a one-to-many relation has no single value to sort by.
 */
function parseSort(
  raw: unknown,
  collection: CollectionSchema,
  relations: RelationalContext | undefined,
): ReadonlyArray<QuerySortField> {
  if (raw === undefined) return [];
  const sort: QuerySortField[] = [];
  const seen = new Set<string>();
  for (const entry of listParam('sort', raw)) {
    const descending = entry.startsWith('-');
    const name = descending ? entry.slice(1) : entry;
    const direction = descending ? 'desc' : 'asc';
    const sqlForm = /^(\S+) (asc|desc)$/i.exec(name);
    if (sqlForm && !fieldOf(collection, name)) {
      const [, sorted, order] = sqlForm;
      throw invalidQuery(
        `Unknown field ${describeInput(name)} in "sort": write "${order!.toLowerCase() === 'desc' ? '-' : ''}${sorted}" (a "-" prefix sorts descending).`,
        { field: name.slice(0, 64), reason: 'UNKNOWN_FIELD' },
      );
    }
    const { field, hops } =
      relations && name.includes('.')
        ? sortPath(name, collection, relations)
        : {
            field: assertField('sort', name, collection, relations?.witness),
            hops: [],
          };
    if (!isSortable(field.type)) {
      throw invalidQuery(`Field "${name}" (${field.type}) cannot be sorted on.`, {
        field: name,
        reason: 'INVALID_VALUE',
      });
    }
    if (seen.has(name)) {
      throw invalidQuery(`Field "${name}" appears twice in "sort".`, {
        field: name,
        reason: 'INVALID_VALUE',
      });
    }
    seen.add(name);
    sort.push(hops.length === 0 ? { field: field.name, direction } : { field: field.name, direction, hops });
  }
  return sort;
}

function sortPath(name: string, collection: CollectionSchema, relations: RelationalContext) {
  const segments = name.split('.');
  const last = segments.pop()!;
  if (segments.length > relations.maxHops) {
    throw invalidQuery(`Sort ${describeInput(name)} goes deeper than ${relations.maxHops} relations.`, {
      reason: 'MAX_DEPTH',
    });
  }
  const hops: RelationalHop[] = [];
  let current = collection;
  for (const [index, segment] of segments.entries()) {
    const hop = hopOf(relations.schema, current, segment);
    if (hop?.direction !== 'many-to-one') {
      witnessDeadEnd(relations.witness, segments.slice(0, index + 1).join('.'), current, segment, hop);
      const why = hop ? 'is a one-to-many relation, with no single value to sort by' : 'is not a relation';
      throw invalidQuery(`Sort ${describeInput(name)}: "${segment}" ${why}.`, {
        field: segment.slice(0, 64),
        reason: hop ? 'INVALID_VALUE' : 'UNKNOWN_FIELD',
      });
    }
    hops.push(hop);
    relations.witness?.crossed(segments.slice(0, index + 1).join('.'), hop);
    current = hop.collection;
  }
  return { field: assertField('sort', last, current, relations.witness, name), hops };
}

/**
 * Tells `witness` what a sort path names where it cannot go on, before that is said: a one-to-many (and
 * the child's foreign key it is read by) or a field that is no relation. Whether either is so is told only
 * to a caller who may read it (docs/api.md §4, permissions at every hop).
 */
function witnessDeadEnd(
  witness: QueryWitness | undefined,
  path: string,
  collection: CollectionSchema,
  segment: string,
  hop: RelationalHop | undefined,
) {
  if (!witness) return;
  if (hop) {
    witness.crossed(path, hop);
    witness.named(path, hop.collection, hop.relation.field);
  } else if (fieldOf(collection, segment)) {
    witness.named(path, collection, segment);
  }
}

/** `limit`: null = no limit, allowed only when the operator set `query.limitMax` to -1. Never clamped. */
function parseLimit(name: string, raw: unknown, limits: QueryLimits): number | null {
  if (raw === undefined) return limits.limitDefault === -1 ? null : limits.limitDefault;
  const limit = integerParam(name, raw);
  if (limit === -1) {
    if (limits.limitMax === -1) return null;
    throw invalidQuery(`"${name}=-1" (no limit) is not allowed here; the maximum is ${limits.limitMax}.`, {
      reason: 'LIMIT_ABOVE_MAX',
    });
  }
  if (limit < 0) throw invalidQuery(`"${name}" must be 0 or more, or -1.`, { reason: 'INVALID_VALUE' });
  if (limits.limitMax !== -1 && limit > limits.limitMax) {
    throw invalidQuery(`"${name}" may be at most ${limits.limitMax}.`, { reason: 'LIMIT_ABOVE_MAX' });
  }
  return limit;
}

/**
 * `offset` (≥ 0) or `page` (≥ 1, pages of `limit`), not both. Without a limit there is only one page,
 * so `page=1` is allowed and any later page is refused rather than answered with an empty list.
 */
function parseOffset(rawOffset: unknown, rawPage: unknown, limit: number | null): number {
  if (rawOffset !== undefined && rawPage !== undefined) {
    throw invalidQuery('Use either "offset" or "page", not both.', { reason: 'INVALID_VALUE' });
  }
  if (rawPage !== undefined) {
    const page = integerParam('page', rawPage);
    if (page < 1) throw invalidQuery('"page" starts at 1.', { reason: 'INVALID_VALUE' });
    if (limit === null) {
      if (page === 1) return 0;
      throw invalidQuery('Without a limit there is only page 1.', { reason: 'INVALID_VALUE' });
    }
    const offset = (page - 1) * limit;
    if (!Number.isSafeInteger(offset))
      throw invalidQuery('"page" is too large.', { reason: 'INVALID_VALUE' });
    return offset;
  }
  if (rawOffset === undefined) return 0;
  const offset = integerParam('offset', rawOffset);
  if (offset < 0) throw invalidQuery('"offset" must be 0 or more.', { reason: 'INVALID_VALUE' });
  return offset;
}

/**
 * `after`: a cursor from a previous page's `next`, checked here only for its alphabet; whether the server
 * made it, and for this very query, is the list handler's to decide.
 */
function parseAfter(raw: unknown): string | null {
  if (raw === undefined) return null;
  const cursor = scalarParam('after', raw);
  if (!CURSOR_TEXT.test(cursor)) {
    throw invalidQuery('"after" is not a cursor this server made.', { reason: 'INVALID_CURSOR' });
  }
  return cursor;
}

/** An empty `search` is no search (forms send `search=` when the box is empty). */
function parseSearch(raw: unknown): string | null {
  if (raw === undefined) return null;
  const search = scalarParam('search', raw);
  if (search === '') return null;
  if (characterCount(search, MAX_SEARCH_LENGTH) > MAX_SEARCH_LENGTH) {
    throw invalidQuery(`"search" may be at most ${MAX_SEARCH_LENGTH} characters.`, {
      reason: 'MAX_SEARCH_LENGTH',
    });
  }
  if (search.includes('\u0000'))
    throw invalidQuery('"search" contains a NUL character.', { reason: 'INVALID_VALUE' });
  return search;
}

/**
 * `meta`: `total_count`, `filter_count`, `*` (both), their `estimated_` forms, `next`, or a comma list of
 * them. `*` keeps meaning the exact counts, as in Directus: an estimate or a cursor is asked for by name.
 */
function parseMeta(raw: unknown): ItemQuery['meta'] {
  if (raw === undefined) {
    return {
      totalCount: false,
      filterCount: false,
      estimatedTotalCount: false,
      estimatedFilterCount: false,
      next: false,
    };
  }
  const values = listParam('meta', raw);
  for (const value of values) {
    if (!META_VALUES.has(value)) {
      throw invalidQuery(
        `Unknown "meta" value ${describeInput(value)}; use total_count, filter_count, their estimated_ forms, next or *.`,
        {
          reason: 'INVALID_VALUE',
        },
      );
    }
  }
  const all = values.includes('*');
  return {
    totalCount: all || values.includes('total_count'),
    filterCount: all || values.includes('filter_count'),
    estimatedTotalCount: values.includes('estimated_total_count'),
    estimatedFilterCount: values.includes('estimated_filter_count'),
    next: values.includes('next'),
  };
}

/** `witness` is told of the field found, under `path` (`name` at the top). */
function assertField(
  parameter: string,
  name: string,
  collection: CollectionSchema,
  witness?: QueryWitness,
  path = name,
) {
  if (name.includes('.')) {
    throw invalidQuery(
      `Relational paths such as ${describeInput(name)} are not supported in "${parameter}".`,
      {
        reason: 'UNKNOWN_FIELD',
      },
    );
  }
  const field = fieldOf(collection, name);
  if (!field) {
    throw invalidQuery(`Unknown field ${describeInput(name)} in "${parameter}".`, {
      field: name.slice(0, 64),
      reason: 'UNKNOWN_FIELD',
    });
  }
  witness?.named(path, collection, name);
  return field;
}

/** A parameter that holds one value: `qs` makes an array of a repeated one and an object of `a[b]=`. */
function scalarParam(name: string, raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  throw invalidQuery(`"${name}" must be given once, as a single value.`, { reason: 'INVALID_VALUE' });
}

function integerParam(name: string, raw: unknown): number {
  const text = scalarParam(name, raw);
  if (!INTEGER_TEXT.test(text)) {
    throw invalidQuery(`"${name}" must be an integer, not ${describeInput(text)}.`, {
      reason: 'INVALID_VALUE',
    });
  }
  return Number(text) === 0 ? 0 : Number(text);
}

/**
 * A list parameter: a comma list, or repeated (`fields[]=a&fields[]=b`), or both. Entries are trimmed —
 * field names cannot hold spaces, so `fields=id, name` is unambiguous. Empty entries are refused.
 * `parenthesized`: a comma inside parentheses belongs to its entry (`json(doc, a),id`); unbalanced
 * parentheses are refused.
 */
function listParam(name: string, raw: unknown, options: { parenthesized?: boolean } = {}): string[] {
  const parts = Array.isArray(raw) ? raw : [raw];
  const entries: string[] = [];
  for (const part of parts) {
    if (typeof part !== 'string') {
      throw invalidQuery(`"${name}" must be a comma-separated list.`, { reason: 'INVALID_VALUE' });
    }
    for (const entry of options.parenthesized ? splitOutsideParentheses(name, part) : part.split(',')) {
      const trimmed = entry.trim();
      if (trimmed === '') throw invalidQuery(`"${name}" has an empty entry.`, { reason: 'INVALID_VALUE' });
      entries.push(trimmed);
    }
  }
  if (entries.length === 0) throw invalidQuery(`"${name}" is empty.`, { reason: 'INVALID_VALUE' });
  return entries;
}

function splitOutsideParentheses(name: string, text: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '(') depth++;
    else if (character === ')') depth--;
    else if (character === ',' && depth === 0) {
      entries.push(text.slice(start, index));
      start = index + 1;
    }
    if (depth < 0) break;
  }
  if (depth !== 0) {
    throw invalidQuery(`"${name}" has unbalanced parentheses.`, { reason: 'INVALID_VALUE' });
  }
  entries.push(text.slice(start));
  return entries;
}
