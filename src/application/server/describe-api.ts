import { type Accountability, isAnonymous } from '../../domain/accountability.ts';
import { newPrimaryKey } from '../../domain/items/auto-fields.ts';
import { isServerField } from '../../domain/items/server-fields.ts';
import type { PermissionAction } from '../../domain/permissions/permission.ts';
import { isQueryable } from '../../domain/permissions/readable-fields.ts';
import { presetsOf, type WriteGrants } from '../../domain/permissions/write-grants.ts';
import type { QueryLimits } from '../../domain/query/parse-item-query.ts';
import {
  type CollectionSchema,
  FILES_COLLECTION,
  type FieldSchema,
  isSystemCollection,
  type SchemaSnapshot,
} from '../../domain/schema/collection-schema.ts';
import type { FieldType } from '../../domain/schema/field-type.ts';
import type { Relation } from '../../domain/schema/relation.ts';
import { manyToOnesOf } from '../../domain/schema/relations-of.ts';
import type { Handler } from '../handler.ts';
import type { ReadRules } from '../items/read-rules.ts';
import type { WriteRules } from '../items/write-rules.ts';
import type { Clock } from '../ports/clock.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';

/** One column as the caller meets it: only columns the caller may read or write are described. */
export type DescribedField = {
  name: string;
  type: FieldType;
  /** The SQL type as PostgreSQL prints it (`real`, `numeric(12,2)`). */
  dbType: string;
  /** The column accepts null. */
  nullable: boolean;
  primaryKey: boolean;
  /** The database default as PostgreSQL prints it, or null. */
  defaultValue: string | null;
  maxLength: number | null;
  /** Set by the server on create or update (date_created…); a value a client sends is dropped. */
  setByServer: boolean;
  read: boolean;
  /** Shown on the rows of some read permissions only: it reads as null on the others (read-rule.ts). */
  readOnSomeRowsOnly: boolean;
  create: boolean;
  update: boolean;
  /** A create must send it: nothing else (default, generated key, preset, server) fills it. */
  requiredOnCreate: boolean;
  /**
   * The item a foreign key points at (docs/api.md §7a), when the caller may read the related collection:
   * what `GET /relations` would show this caller, so a client can offer the related items to pick from.
   */
  related: { collection: string; field: string } | null;
};

export type DescribedCollection = {
  name: string;
  /** The key that addresses one item, whether or not the caller may read it; null = not addressable. */
  primaryKey: { name: string; type: FieldType; dbType: string } | null;
  /**
   * The caller reads the collection but may not filter on its key: no request of theirs may name rows by
   * key, nor follow the collection's changes (whose deletes name rows by key), so neither is offered
   * (docs/decisions/0072-naming-a-row-by-key-needs-the-key-readable.md).
   */
  keyHidden: boolean;
  actions: Readonly<Record<PermissionAction, boolean>>;
  /** In column order. */
  fields: DescribedField[];
};

export type ApiDescription = {
  version: string;
  /** The SPDX identifier of the server's license. */
  license: string;
  /** What kind of caller this is: the operations of /users/me need a user, administration an admin. */
  caller: { user: boolean; admin: boolean };
  limits: QueryLimits & { batchMax: number };
  /**
   * Whether changes are recorded for realtime subscribers (`realtime.enabled`): off, `/websocket` and the
   * event streams still accept subscriptions, but no change ever arrives, so a client must not call itself live.
   */
  realtime: boolean;
  /** Every collection the caller may perform at least one action on, by name. */
  collections: DescribedCollection[];
  /** What the caller may do with the files collection: the files' operations it may use (docs/api.md §15). */
  files: Readonly<Record<PermissionAction, boolean>>;
  /** The caller reads files but may not filter on their `id`: `/files/:id` is refused them (DescribedCollection). */
  filesKeyHidden: boolean;
};

const NO_ACTIONS: Readonly<Record<PermissionAction, boolean>> = {
  read: false,
  create: false,
  update: false,
  delete: false,
};

export type ApiSettings = {
  version: string;
  license: string;
  limits: QueryLimits;
  batchMax: number;
  realtime: boolean;
};

/**
 * GET /server/specs/oas — what the caller may do with the live schema, for the OpenAPI document. The
 * answers come from the rules the item handlers enforce (read rules, write grants), so the document
 * never promises a field or an operation the API would refuse, and never reveals one it hides.
 */
export class DescribeApiHandler implements Handler<void, ApiDescription> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly readRules: ReadRules,
    private readonly writeRules: WriteRules,
    private readonly clock: Clock,
    private readonly settings: ApiSettings,
  ) {}

  async execute(caller: Accountability): Promise<ApiDescription> {
    const now = this.clock.now();
    // Files are described by the files module's own paths, never as /items (docs/api.md §15).
    const snapshot = this.catalog.current();
    const schemas = [...snapshot.collections.values()]
      .filter((collection) => !isSystemCollection(collection.name))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const collections: DescribedCollection[] = [];
    for (const collection of schemas) {
      const described = await this.describe(caller, snapshot, collection, now);
      if (described) collections.push(described);
    }
    const filesCollection = snapshot.collections.get(FILES_COLLECTION);
    const files = filesCollection ? await this.actions(caller, filesCollection, now) : NO_ACTIONS;
    const filesRead = filesCollection ? await this.readRules.optional(caller, filesCollection, now) : null;
    const filesKeyHidden = filesRead !== null && !isQueryable(filesRead, filesCollection?.primaryKey ?? 'id');
    const { version, license, limits, batchMax, realtime } = this.settings;
    return {
      version,
      license,
      // A role's preview is described as that role's users are (docs/api.md §6).
      caller: { user: !isAnonymous(caller), admin: caller.admin },
      limits: { ...limits, batchMax },
      realtime,
      collections,
      files,
      filesKeyHidden,
    };
  }

  private async actions(
    caller: Accountability,
    collection: CollectionSchema,
    now: Date,
  ): Promise<Record<PermissionAction, boolean>> {
    const read = (await this.readRules.optional(caller, collection, now)) !== null;
    return {
      read,
      create: granted(await this.writeRules.optional(caller, collection, 'create', now)),
      update: read && granted(await this.writeRules.optional(caller, collection, 'update', now)),
      delete: read && granted(await this.writeRules.optional(caller, collection, 'delete', now)),
    };
  }

  private async describe(
    caller: Accountability,
    snapshot: SchemaSnapshot,
    collection: CollectionSchema,
    now: Date,
  ): Promise<DescribedCollection | null> {
    const read = await this.readRules.optional(caller, collection, now);
    const create = await this.writeRules.optional(caller, collection, 'create', now);
    const update = await this.writeRules.optional(caller, collection, 'update', now);
    const remove = await this.writeRules.optional(caller, collection, 'delete', now);
    // An update or delete finds its rows as a read does: without a read permission both are refused.
    const actions = {
      read: read !== null,
      create: granted(create),
      update: read !== null && granted(update),
      delete: read !== null && granted(remove),
    };
    if (!Object.values(actions).some(Boolean)) return null;

    const keyHidden =
      read !== null && collection.primaryKey !== null && !isQueryable(read, collection.primaryKey);
    const presets = presetsOf(create);
    const generatedKeys = Object.keys(newPrimaryKey(collection));
    const foreignKeys = manyToOnesOf(snapshot, collection.name);
    const fields: DescribedField[] = [];
    for (const field of collection.fields) {
      const setByServer = isServerField(field, collection);
      const readCondition = read?.fields.get(field.name);
      const relation = foreignKeys.get(field.name);
      const related = relation ? await this.relatedFor(caller, snapshot, relation, now) : null;
      const described = {
        name: field.name,
        type: field.type,
        dbType: field.dbType,
        nullable: field.nullable,
        primaryKey: field.isPrimaryKey,
        defaultValue: field.defaultValue,
        maxLength: field.maxLength,
        setByServer,
        read: readCondition !== undefined,
        readOnSomeRowsOnly: readCondition !== undefined && readCondition !== null,
        create: writable(create, collection, field),
        // A batch update names each item by its key, which may always be repeated (unchanged-key.ts).
        update:
          actions.update &&
          ((field.name === collection.primaryKey && !keyHidden) || writable(update, collection, field)),
        requiredOnCreate:
          !field.nullable &&
          !field.hasDefault &&
          !setByServer &&
          !generatedKeys.includes(field.name) &&
          !Object.hasOwn(presets, field.name),
        related,
      };
      if (described.read || described.create || described.update) fields.push(described);
    }
    const key = collection.fields.find((field) => field.name === collection.primaryKey);
    return {
      name: collection.name,
      primaryKey: key ? { name: key.name, type: key.type, dbType: key.dbType } : null,
      keyHidden,
      actions,
      fields,
    };
  }

  /** The related collection, only to a caller who may read it: naming it to others would reveal it. */
  private async relatedFor(
    caller: Accountability,
    snapshot: SchemaSnapshot,
    relation: Relation,
    now: Date,
  ): Promise<DescribedField['related']> {
    const related = snapshot.collections.get(relation.relatedCollection);
    if (!related || (await this.readRules.optional(caller, related, now)) === null) return null;
    return { collection: relation.relatedCollection, field: relation.relatedField };
  }
}

function granted(grants: WriteGrants): boolean {
  return grants === 'all' || grants.length > 0;
}

/**
 * Whether some grant lets a payload set the field. Server-set fields are dropped from payloads and
 * columns of types the API does not know are refused (column-value.ts), so neither is writable.
 */
function writable(grants: WriteGrants, collection: CollectionSchema, field: FieldSchema): boolean {
  if (isServerField(field, collection) || field.type === 'unknown') return false;
  if (grants === 'all') return true;
  return grants.some((grant) => grant.fields === 'all' || grant.fields.has(field.name));
}
