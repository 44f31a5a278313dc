import type { CollectionSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import { describeInput, invalidQuery } from './invalid-query.ts';
import type { ItemQuery, SelectedName, SortField } from './item-query.ts';
import { isJsonCall, parseJsonSelection } from './json-path.ts';
import { isSortable } from './operator-support.ts';
import { parseFilter } from './parse-filter.ts';

/** The query string as `qs` parsed it: strings, arrays of strings, nested objects (bracket form). */
export type RawItemQuery = Readonly<Record<string, unknown>>;

/** `query.limitDefault` / `query.limitMax` (docs/api.md §8); -1 means "no limit". */
export type QueryLimits = { readonly limitDefault: number; readonly limitMax: number };

/** docs/api.md §4a. Counted in code points, so an emoji is one character as a user would count it. */
export const MAX_SEARCH_LENGTH = 256;

/**
 * Directus parameters we do not implement. Ignoring them would answer a different question than the one
 * asked (items instead of an aggregate), so they are refused; any other unknown parameter is ignored,
 * since clients send extras (`access_token`, `export`, cache busters).
 */
const UNSUPPORTED_PARAMETERS = ['deep', 'alias'] as const;

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
 */
export function parseItemQuery(
  raw: RawItemQuery,
  collection: CollectionSchema,
  limits: QueryLimits,
): ItemQuery {
  for (const name of UNSUPPORTED_PARAMETERS) {
    if (param(raw, name) !== undefined) {
      throw invalidQuery(`The "${name}" parameter is not supported.`, { reason: 'UNSUPPORTED_PARAMETER' });
    }
  }
  const limit = parseLimit(param(raw, 'limit'), limits);
  const after = parseAfter(param(raw, 'after'));
  if (after !== null && (param(raw, 'offset') !== undefined || param(raw, 'page') !== undefined)) {
    throw invalidQuery('Use either "after" or "offset"/"page", not both.', { reason: 'INVALID_VALUE' });
  }
  return {
    fields: parseFields(param(raw, 'fields'), collection),
    filter: parseOptionalFilter(param(raw, 'filter'), collection),
    sort: parseSort(param(raw, 'sort'), collection),
    limit,
    offset: parseOffset(param(raw, 'offset'), param(raw, 'page'), limit),
    after,
    search: parseSearch(param(raw, 'search')),
    meta: parseMeta(param(raw, 'meta')),
  };
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
function parseFields(raw: unknown, collection: CollectionSchema): ItemQuery['fields'] {
  if (raw === undefined) return '*';
  const selected: SelectedName[] = [];
  const names = new Set<string>();
  const keys = new Map<string, string>();
  for (const entry of listParam('fields', raw, { parenthesized: true })) {
    if (isJsonCall(entry)) {
      const json = parseJsonSelection(entry, collection);
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
      if (entry !== '*') assertField('fields', entry, collection);
      names.add(entry);
      selected.push(entry);
    }
  }
  return selected.length === 1 && selected[0] === '*' ? '*' : selected;
}

/** `filter`: JSON text or the bracket form's object; `{}` is no filter. */
function parseOptionalFilter(raw: unknown, collection: CollectionSchema) {
  if (raw === undefined) return null;
  if (typeof raw !== 'string' && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw invalidQuery('"filter" must be a JSON object, given once.', { reason: 'INVALID_VALUE' });
  }
  const filter = parseFilter(raw, collection);
  return filter.kind === 'and' && filter.nodes.length === 0 ? null : filter;
}

/** `sort`: comma list, `-` prefix for descending. A field sorted twice is a mistake worth reporting. */
function parseSort(raw: unknown, collection: CollectionSchema): ReadonlyArray<SortField> {
  if (raw === undefined) return [];
  const sort: SortField[] = [];
  for (const entry of listParam('sort', raw)) {
    const descending = entry.startsWith('-');
    const name = descending ? entry.slice(1) : entry;
    const field = assertField('sort', name, collection);
    if (!isSortable(field.type)) {
      throw invalidQuery(`Field "${name}" (${field.type}) cannot be sorted on.`, {
        field: name,
        reason: 'INVALID_VALUE',
      });
    }
    if (sort.some((existing) => existing.field === name)) {
      throw invalidQuery(`Field "${name}" appears twice in "sort".`, {
        field: name,
        reason: 'INVALID_VALUE',
      });
    }
    sort.push({ field: name, direction: descending ? 'desc' : 'asc' });
  }
  return sort;
}

/** `limit`: null = no limit, allowed only when the operator set `query.limitMax` to -1. Never clamped. */
function parseLimit(raw: unknown, limits: QueryLimits): number | null {
  if (raw === undefined) return limits.limitDefault === -1 ? null : limits.limitDefault;
  const limit = integerParam('limit', raw);
  if (limit === -1) {
    if (limits.limitMax === -1) return null;
    throw invalidQuery(`"limit=-1" (no limit) is not allowed here; the maximum is ${limits.limitMax}.`, {
      reason: 'LIMIT_ABOVE_MAX',
    });
  }
  if (limit < 0) throw invalidQuery('"limit" must be 0 or more, or -1.', { reason: 'INVALID_VALUE' });
  if (limits.limitMax !== -1 && limit > limits.limitMax) {
    throw invalidQuery(`"limit" may be at most ${limits.limitMax}.`, { reason: 'LIMIT_ABOVE_MAX' });
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
  if (search.length > MAX_SEARCH_LENGTH && [...search].length > MAX_SEARCH_LENGTH) {
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

function assertField(parameter: string, name: string, collection: CollectionSchema) {
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
