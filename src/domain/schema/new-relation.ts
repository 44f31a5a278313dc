import { fitsIdentifier, MAX_IDENTIFIER_BYTES, utf8Prefix } from './identifier-bytes.ts';
import type { ReferentialAction } from './relation.ts';

/** A foreign key a client asks to create (docs/api.md §7a), before any check. */
export type NewRelation = {
  readonly collection: string;
  readonly field: string;
  readonly relatedCollection: string;
  /** The column referred to; the related collection's primary key when not given. */
  readonly relatedField?: string;
  readonly onDelete?: ReferentialAction;
  readonly onUpdate?: ReferentialAction;
  /** The one-to-many name asked for (Directus's `meta.one_field`); the default name when absent. */
  readonly oneField?: string;
};

const SUFFIX = '_foreign';

/**
 * Directus's name for the constraint of `collection.field` (`<collection>_<field>_foreign`) when PostgreSQL
 * keeps it whole. A longer one would be cut to 63 bytes, where two fields of one long-named collection
 * (`…_parent_one`, `…_parent_two`) meet: the second foreign key would clash with the first. Such a name
 * keeps its start and gets a digest of the whole, so that it is still readable and one per field.
 */
export function constraintNameOf(collection: string, field: string): string {
  const directus = `${collection}_${field}${SUFFIX}`;
  if (fitsIdentifier(directus)) return directus;
  const digest = fnv1a64(JSON.stringify([collection, field]));
  const start = utf8Prefix(
    `${collection}_${field}`,
    MAX_IDENTIFIER_BYTES - digest.length - 1 - SUFFIX.length,
  );
  return `${start}_${digest}${SUFFIX}`;
}

/** FNV-1a, 64 bits, of the UTF-16 units, as 16 hex digits: a pure digest, which is all a name needs. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let index = 0; index < text.length; index++) {
    hash ^= BigInt(text.charCodeAt(index));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
