import { DomainError, failedValidation, forbidden } from '../errors.ts';
import { type CanonicalItem, withCanonicalJson } from '../items/canonical-item.ts';
import { isServerField } from '../items/server-fields.ts';
import { matchesFilter } from '../query/evaluate-filter.ts';
import type { BoundFilterNode } from '../query/filter.ts';
import { type CollectionSchema, fieldOf } from '../schema/collection-schema.ts';
import { namesAnyOf } from './filter-fields.ts';
import type { WriteGrant, WriteGrants } from './write-grant.ts';

/*
 * The permission checks of a write (docs/api.md §5, §6). They throw FORBIDDEN rather than refusal(caller):
 * the handler knows the caller and turns it into UNAUTHENTICATED for the public caller. Items are
 * canonical values (CanonicalItem, the same forms as the store's StoredItem); a field missing from an
 * item reads as null, so check the item as it is, or will be, stored — database defaults included.
 */

/**
 * A new item may be created when some grant covers it: the grant lets the payload set every field the
 * client sent (`payloadFields` — not presets, generated keys or auto fields), its `rows` filter matches
 * the item (the create permission's filter limits what may be created), and its `validation` holds on
 * the item.
 *
 * When none does, the most useful refusal wins: FAILED_VALIDATION (naming the first field of the failing
 * rule) if some grant covered the item and its fields but its validation failed — the client can fix the
 * values; else FORBIDDEN naming the first field outside a grant that covered the item; else FORBIDDEN.
 */
export function authorizeCreate(
  grants: WriteGrants,
  item: CanonicalItem,
  payloadFields: ReadonlyArray<string>,
): void {
  authorizeWrite(grants, item, item, payloadFields);
}

/**
 * authorizeCreate before the insert, so that no answer of the database (a unique clash, a foreign key)
 * comes before a permission refusal (docs/api.md §5). `draft` is the item as it will be stored except for
 * the `unknown` columns, which only the database fills (stored-draft.ts). When no grant's rules name one
 * of those, the answer is exactly authorizeCreate's on the stored row. Otherwise a grant that lets the
 * payload's fields through and whose rules depend on an unknown column may still cover the item: the
 * check waits for the stored row (authorizeCreate after the insert); if none can, the item is refused now.
 */
export function authorizeCreateDraft(
  grants: WriteGrants,
  draft: CanonicalItem,
  unknown: ReadonlySet<string>,
  payloadFields: ReadonlyArray<string>,
): void {
  if (grants === 'all') return;
  const undecided = (filter: BoundFilterNode | null) =>
    filter !== null && unknown.size > 0 && namesAnyOf(filter, unknown);
  const waits = grants.some(
    (grant) =>
      fieldOutside(grant, payloadFields) === undefined &&
      (undecided(grant.rows) || undecided(grant.validation)),
  );
  if (!waits) authorizeCreate(grants, draft, payloadFields);
}

/**
 * As authorizeCreate, but `rows` is matched against the row as it is now (an update only touches rows
 * inside the permission filter) and `validation` against the row as it will be (`merged`: existing row,
 * payload, auto fields; presets fill defaults on create only).
 */
export function authorizeUpdate(
  grants: WriteGrants,
  existing: CanonicalItem,
  merged: CanonicalItem,
  payloadFields: ReadonlyArray<string>,
): void {
  authorizeWrite(grants, existing, merged, payloadFields);
}

/**
 * FORBIDDEN naming the first member of the payload `raw` that names a field no grant lets a payload set,
 * before any value is looked at (docs/api.md §5): were a value that does not fit its column refused first
 * (400), the answer would tell the type of a field the caller may not write, an enum's labels one by one.
 * Members that name no field and fields the server sets are left to the payload's own checks
 * (parseItemPayload), and so is `except`: an update's primary key, which may be repeated unchanged.
 */
export function refuseUngrantedFields(
  grants: WriteGrants,
  raw: unknown,
  collection: CollectionSchema,
  except?: string,
): void {
  if (grants === 'all' || typeof raw !== 'object' || raw === null || Array.isArray(raw)) return;
  for (const key of Object.keys(raw)) {
    const field = key === except ? undefined : fieldOf(collection, key);
    if (!field || isServerField(field, collection)) continue;
    if (!grants.some((grant) => grant.fields === 'all' || grant.fields.has(key))) throw forbidden(key);
  }
}

/** A row may be deleted when some grant's `rows` matches it; else FORBIDDEN. */
export function authorizeDelete(grants: WriteGrants, existing: CanonicalItem): void {
  if (grants === 'all') return;
  const collection = grants[0]?.collection;
  if (!collection) throw forbidden();
  const row = withCanonicalJson(existing, collection);
  if (!grants.some((grant) => covers(grant.rows, row, collection))) throw forbidden();
}

function authorizeWrite(
  grants: WriteGrants,
  existing: CanonicalItem,
  written: CanonicalItem,
  payloadFields: ReadonlyArray<string>,
): void {
  if (grants === 'all') return;
  const collection = grants[0]?.collection;
  if (!collection) throw forbidden();
  const row = withCanonicalJson(existing, collection);
  const result = existing === written ? row : withCanonicalJson(written, collection);
  let invalid: DomainError | null = null;
  let outsideField: string | undefined;
  for (const grant of grants) {
    if (!covers(grant.rows, row, collection)) continue;
    const outside = fieldOutside(grant, payloadFields);
    if (outside !== undefined) {
      outsideField ??= outside;
      continue;
    }
    if (covers(grant.validation, result, collection)) return;
    invalid ??= validationFailure(grant.validation!, result, collection);
  }
  throw invalid ?? forbidden(outsideField);
}

function fieldOutside(grant: WriteGrant, payloadFields: ReadonlyArray<string>): string | undefined {
  return payloadFields.find((field) => grant.fields !== 'all' && !grant.fields.has(field));
}

function covers(filter: BoundFilterNode | null, item: CanonicalItem, collection: CollectionSchema): boolean {
  return filter === null || matchesFilter(filter, item, collection);
}

function validationFailure(
  validation: BoundFilterNode,
  item: CanonicalItem,
  collection: CollectionSchema,
): DomainError {
  const field = failingField(validation, item, collection);
  return field === null
    ? // A rule no item can satisfy (an unbindable dynamic value makes a condition match nothing).
      new DomainError('FAILED_VALIDATION', 'The item does not satisfy the validation rule.')
    : failedValidation(field, `The value of "${field}" does not satisfy the validation rule.`);
}

/**
 * The field to point the client at: of the first condition that fails, following the first failing
 * member of an AND and, for an OR (all members fail), its first member that names a field.
 */
function failingField(
  node: BoundFilterNode,
  item: CanonicalItem,
  collection: CollectionSchema,
): string | null {
  if (node.kind === 'condition') return node.field;
  if (node.kind === 'relation') return node.hop.direction === 'many-to-one' ? node.hop.key : null;
  const failing = node.nodes.filter((child) => !matchesFilter(child, item, collection));
  for (const child of failing) {
    const field = failingField(child, item, collection);
    if (field !== null) return field;
  }
  return null;
}
