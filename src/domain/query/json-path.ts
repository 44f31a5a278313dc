import type { CollectionSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import { MAX_IDENTIFIER_BYTES, utf8Bytes } from '../schema/identifier-bytes.ts';
import type { QueryWitness } from './hop-of.ts';
import { describeInput, invalidQuery } from './invalid-query.ts';

/** Directus's MAX_JSON_QUERY_DEPTH default: the most keys and indexes a `json()` path may hold. */
export const MAX_JSON_PATH_DEPTH = 10;

/**
 * The longest response key, in UTF-8 bytes: PostgreSQL names a column by at most 63 bytes and would cut a
 * longer key silently, so the answer's key would no longer be the one Directus's rule gives.
 */
export const MAX_JSON_KEY_BYTES = MAX_IDENTIFIER_BYTES;

/**
 * `json(field, path)` in `fields` (Directus 11): the value at `path` inside the json field, answered under
 * `key`. Each path segment is an object key or an array index, both as text: PostgreSQL's `#>` reads a
 * digit segment as an index on an array and as a key on an object, and so does the in-memory twin.
 */
export type JsonPathSelection = {
  readonly field: string;
  readonly path: ReadonlyArray<string>;
  /** Directus's response key: `{field}_{path}_json`, the path's `.`, `[` and `]` as `_`. */
  readonly key: string;
};

const JSON_CALL = /^json\((.*)\)$/su;
/**
 * One step of a path normalized to start with `.` or `[`: a key of letters, digits, marks, `_` and
 * pictographs (Directus's allowlist, which keeps out every character JSONPath or SQL gives a meaning), or
 * a non-negative index.
 */
const STEP = /\.([\p{L}\p{N}\p{M}\p{Extended_Pictographic}_]+)|\[(\d+)\]/uy;

/** Whether a `fields` entry is a `json(…)` call rather than a field name. */
export function isJsonCall(entry: string): boolean {
  return entry.startsWith('json(');
}

/**
 * Parses `json(field, path)` against the collection; every refusal is INVALID_QUERY naming the reason.
 * `witness` is told of the field once it is found, before its type is looked at.
 */
export function parseJsonSelection(
  entry: string,
  collection: CollectionSchema,
  witness?: QueryWitness,
): JsonPathSelection {
  const call = JSON_CALL.exec(entry);
  const comma = call ? call[1]!.indexOf(',') : -1;
  if (!call || comma === -1) {
    throw invalidQuery(`${describeInput(entry)} is not json(field, path).`, { reason: 'INVALID_VALUE' });
  }
  const name = call[1]!.slice(0, comma).trim();
  const text = call[1]!.slice(comma + 1).trim();
  if (name === '' || text === '') {
    throw invalidQuery(`${describeInput(entry)} is not json(field, path): both are required.`, {
      reason: 'INVALID_VALUE',
    });
  }
  const field = fieldOf(collection, name);
  if (!field || name.includes('.')) {
    throw invalidQuery(`Unknown field ${describeInput(name)} in "fields".`, {
      field: name.slice(0, 64),
      reason: 'UNKNOWN_FIELD',
    });
  }
  witness?.named(name, collection, name);
  if (field.type !== 'json') {
    throw invalidQuery(`json() reads json fields only; "${name}" is ${field.type}.`, {
      field: name,
      reason: 'INVALID_VALUE',
    });
  }
  const path = parsePath(text);
  const key = `${name}_${path.join('_')}_json`;
  if (utf8Bytes(key) > MAX_JSON_KEY_BYTES) {
    throw invalidQuery(
      `The answer's key for ${describeInput(entry)} would be longer than ${MAX_JSON_KEY_BYTES} bytes.`,
      { reason: 'INVALID_VALUE' },
    );
  }
  return { field: name, path, key };
}

/** `color`, `settings.theme`, `items[0].name`, `[0]`: keys by dots, indexes in brackets. */
function parsePath(text: string): string[] {
  const normalized = text.startsWith('[') ? text : `.${text}`;
  const path: string[] = [];
  STEP.lastIndex = 0;
  while (STEP.lastIndex < normalized.length) {
    const step = STEP.exec(normalized);
    if (!step) {
      throw invalidQuery(
        `Unsupported JSON path ${describeInput(text)}: use keys joined by "." and indexes such as [0].`,
        { reason: 'INVALID_VALUE' },
      );
    }
    path.push(step[1] ?? step[2]!);
  }
  if (path.length > MAX_JSON_PATH_DEPTH) {
    throw invalidQuery(
      `JSON path depth (${path.length}) exceeds the allowed maximum of ${MAX_JSON_PATH_DEPTH}.`,
      { reason: 'MAX_DEPTH' },
    );
  }
  return path;
}
