import { hkdfSync } from 'node:crypto';
import { coerceValue } from '../../domain/query/coerce-value.ts';
import type { FilterNode, ScalarValue } from '../../domain/query/filter.ts';
import { invalidQuery } from '../../domain/query/invalid-query.ts';
import type { SortField } from '../../domain/query/item-query.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import { openText, sealText } from '../aes-gcm-seal.ts';

/** HKDF `info`: separates this key from every other use of the server secret. */
const KEY_LABEL = 'datagate item cursor aes-256-gcm v1';
const KEY_BYTES = 32;

/**
 * What a cursor is valid for: the rows of one query in one order. The page size and the fields shown may
 * change from page to page; anything that changes which rows come next may not.
 */
export type CursorQuery = {
  readonly collection: CollectionSchema;
  /** The keyset (keyset.ts): the sort, ended by the primary key. */
  readonly keyset: ReadonlyArray<SortField>;
  /** The filter as parsed, dynamic values unresolved: `$NOW` stays the same query from page to page. */
  readonly filter: FilterNode | null;
  readonly search: string | null;
};

/**
 * Keyset cursors (docs/decisions/0019): the last row's keyset values, sealed with AES-256-GCM under a key
 * HKDF-derived from the server secret, so every instance sharing the secret opens the others' cursors.
 * The query a cursor was made for is the additional authenticated data: it is not carried in the cursor,
 * but a cursor opens only for that same query, so one made for another collection, sort, filter or
 * search is refused like a forged one. Encrypting (rather than only signing) keeps the values unreadable:
 * the primary key ending every keyset may be a field the caller is not allowed to read.
 */
export class ItemCursors {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, Buffer.alloc(0), KEY_LABEL, KEY_BYTES));
  }

  /** base64url(nonce ‖ ciphertext ‖ tag) of the keyset values, for `query`. */
  seal(values: ReadonlyArray<ScalarValue | null>, query: CursorQuery): string {
    return sealText(this.key, JSON.stringify(values) + keyPadding(values.at(-1) ?? null), queryText(query));
  }

  /**
   * The keyset values of a cursor sealed for `query`, coerced to the fields' current types. INVALID_QUERY
   * for anything else: altered, made with another secret, for another query, or no longer fitting the
   * schema (a column's type changed between pages).
   */
  open(cursor: string, query: CursorQuery): Array<ScalarValue | null> {
    const text = openText(this.key, cursor, queryText(query));
    if (text === null) throw notACursor();
    return keysetValues(JSON.parse(text), query);
  }
}

/** The least room a primary key takes in a cursor (an int8 is 20 characters at most), and the step above it. */
const KEY_WIDTH = 24;
const KEY_STEP = 16;

/**
 * Spaces after the JSON (which parsing ignores) that fill the primary key, the keyset's last value, to a
 * width of its own: encryption hides the bytes but not their count, and the key may be a field the caller
 * may not read, whose digits would otherwise show in the cursor's length. Every integer key takes the same
 * room; a longer key (a text) is rounded up to a step. The other values are sort fields the caller reads.
 */
function keyPadding(key: ScalarValue | null): string {
  const bytes = Buffer.byteLength(JSON.stringify(key));
  const width = bytes <= KEY_WIDTH ? KEY_WIDTH : Math.ceil(bytes / KEY_STEP) * KEY_STEP;
  return ' '.repeat(width - bytes);
}

/** The query's identity as authenticated data; versioned so a format change invalidates old cursors. */
function queryText({ collection, keyset, filter, search }: CursorQuery): string {
  return JSON.stringify(['v1', collection.name, keyset, filter, search]);
}

/** The sealed values checked against the keyset's fields as the schema now has them. */
function keysetValues(values: unknown, { collection, keyset }: CursorQuery): Array<ScalarValue | null> {
  if (!Array.isArray(values) || values.length !== keyset.length) throw notACursor();
  return keyset.map(({ field: name }, index) => {
    const field = fieldOf(collection, name);
    const value: unknown = values[index];
    if (!field) throw notACursor();
    if (value === null) return null;
    try {
      return coerceValue(field, value);
    } catch {
      throw notACursor();
    }
  });
}

function notACursor() {
  return invalidQuery('"after" is not a cursor of this query; start again from the first page.', {
    reason: 'INVALID_CURSOR',
  });
}
