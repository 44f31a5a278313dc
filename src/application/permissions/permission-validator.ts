import { DomainError, failedValidation } from '../../domain/errors.ts';
import {
  PERMISSION_ACTIONS,
  Permission,
  type PermissionAction,
  type PermissionProps,
} from '../../domain/permissions/permission.ts';
import { checkPresets } from '../../domain/permissions/write-presets.ts';
import type { FilterNode } from '../../domain/query/filter.ts';
import { checkFilterBounds } from '../../domain/query/filter-bounds.ts';
import {
  type CollectionSchema,
  isPresentedSystemCollection,
  isSystemCollection,
} from '../../domain/schema/collection-schema.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';

/** The filter parser of the query language (throws DomainError INVALID_QUERY). */
export type ParseFilter = (raw: unknown, collection: CollectionSchema) => FilterNode;

/** A permission before its action is known to be one: what create and update assemble from a command. */
export type PermissionDraft = Omit<PermissionProps, 'action'> & { action: string };

/** A PostgreSQL identifier as a table name may be (63 bytes at most), without quoting tricks. */
const COLLECTION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Checks a permission before it is stored, each refusal naming its field (FAILED_VALIDATION).
 * A permission may name a collection that does not exist yet (as in Directus: grant first, create the
 * table later); when the collection exists, its filters, presets and fields are checked against it, so
 * that a typo is refused now rather than silently granting nothing later.
 */
export class PermissionValidator {
  constructor(
    private readonly roles: RoleRepository,
    private readonly schema: SchemaCatalog,
    private readonly parseFilter: ParseFilter,
  ) {}

  async validated(draft: PermissionDraft): Promise<Permission> {
    checkCollectionName(draft.collection);
    checkAction(draft.action);
    const permission = new Permission({ ...draft, action: draft.action });
    if (permission.role !== null && !(await this.roles.findById(permission.role))) {
      throw failedValidation('role', 'Role does not exist.');
    }
    checkJsonObject('permissions', permission.permissions);
    checkJsonObject('validation', permission.validation);
    checkJsonObject('presets', permission.presets);
    checkFieldList(permission.fields);
    // A name given twice means nothing more (as in a query's `fields`): stored once, where first named.
    if (permission.fields !== null) permission.fields = [...new Set(permission.fields)];

    const collection = this.schema.current().collections.get(permission.collection);
    if (collection) {
      this.checkFilter('permissions', permission.permissions, collection);
      this.checkFilter('validation', permission.validation, collection);
      checkKnownFields('presets', Object.keys(permission.presets ?? {}), collection);
      if (permission.presets !== null) checkPresets(permission.presets, collection);
      checkKnownFields(
        'fields',
        (permission.fields ?? []).filter((name) => name !== '*'),
        collection,
      );
    } else {
      // Nothing to check names and values against yet; the size a table would allow holds all the same.
      checkFilter('permissions', permission.permissions, checkFilterBounds);
      checkFilter('validation', permission.validation, checkFilterBounds);
      checkPresetBounds(permission.presets);
    }
    return permission;
  }

  private checkFilter(field: string, filter: unknown, collection: CollectionSchema) {
    checkFilter(field, filter, (raw) => this.parseFilter(raw, collection));
  }
}

/** A rule's filter through `check`, its INVALID_QUERY answered as the rule's FAILED_VALIDATION. */
function checkFilter(field: string, filter: unknown, check: (raw: unknown) => unknown) {
  if (filter === null) return;
  try {
    check(filter);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'INVALID_QUERY') {
      throw failedValidation(field, error.message);
    }
    throw error;
  }
}

function checkCollectionName(name: string) {
  if (!COLLECTION_NAME.test(name)) {
    throw failedValidation(
      'collection',
      'Collection must be 1 to 63 letters, digits or underscores, not starting with a digit.',
    );
  }
  if (isSystemCollection(name) && !isPresentedSystemCollection(name)) {
    throw failedValidation('collection', 'System collections other than files cannot be given permissions.');
  }
}

function checkAction(action: string): asserts action is PermissionAction {
  if (!(PERMISSION_ACTIONS as readonly string[]).includes(action)) {
    throw failedValidation('action', `Action must be one of ${PERMISSION_ACTIONS.join(', ')}.`);
  }
}

/**
 * Filters and presets are JSON objects. Strings may not hold U+0000: PostgreSQL's jsonb refuses it, and
 * the answer would otherwise be a 500 from the database.
 */
function checkJsonObject(field: string, value: unknown) {
  if (value === null) return;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw failedValidation(field, `"${field}" must be an object or null.`);
  }
  if (containsNul(value)) throw failedValidation(field, `"${field}" may not contain the character U+0000.`);
}

/**
 * The most a permission's `fields` (and, for a collection to come, its `presets`) may name, and the longest
 * name: what a PostgreSQL table can have (1,600 columns, names of 63 bytes). Checked even for a collection
 * that does not exist yet, which bounds a list nothing else could check.
 */
const MAX_FIELDS = 1600;
const MAX_FIELD_NAME_BYTES = 63;

function checkFieldList(fields: unknown) {
  if (fields === null) return;
  if (!Array.isArray(fields) || !fields.every((name) => typeof name === 'string' && name.length > 0)) {
    throw failedValidation('fields', 'Fields must be a list of field names, ["*"], or null.');
  }
  if (containsNul(fields))
    throw failedValidation('fields', 'Field names may not contain the character U+0000.');
  if (fields.length > MAX_FIELDS) {
    throw failedValidation(
      'fields',
      `Fields may name at most ${MAX_FIELDS} fields, as many as a table can have.`,
    );
  }
  if (fields.some((name: string) => Buffer.byteLength(name) > MAX_FIELD_NAME_BYTES)) {
    throw failedValidation('fields', `A field name is at most ${MAX_FIELD_NAME_BYTES} bytes (UTF-8) long.`);
  }
}

/**
 * Presets for a collection to come: no more members than a table has fields, with names a column could
 * have (on an existing table each must name one of its fields).
 */
function checkPresetBounds(presets: Record<string, unknown> | null) {
  if (presets === null) return;
  const names = Object.keys(presets);
  if (names.length > MAX_FIELDS) {
    throw failedValidation(
      'presets',
      `Presets may set at most ${MAX_FIELDS} fields, as many as a table can have.`,
    );
  }
  if (names.some((name) => Buffer.byteLength(name) > MAX_FIELD_NAME_BYTES)) {
    throw failedValidation('presets', `A field name is at most ${MAX_FIELD_NAME_BYTES} bytes (UTF-8) long.`);
  }
}

/** Walks with an explicit stack: a body nested deeper than the call stack must not crash the check. */
function containsNul(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes('\0')) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, member] of Object.entries(value)) {
        if (key.includes('\0')) return true;
        pending.push(member);
      }
    }
  }
  return false;
}

function checkKnownFields(field: string, names: ReadonlyArray<string>, collection: CollectionSchema) {
  const known = new Set(collection.fields.map((f) => f.name));
  const unknown = names.find((name) => !known.has(name));
  if (unknown !== undefined) {
    throw failedValidation(field, `Collection "${collection.name}" has no field "${unknown}".`);
  }
}
