import type { ApiClient } from './client.ts';
import type { FieldShape } from './field-shape.ts';

export type { FieldKind, FieldShape } from './field-shape.ts';

/** A collection as the caller may use it: what it may read, and which writes it may make. */
export type CollectionShape = {
  name: string;
  /** The readable fields, in the table's order. */
  fields: FieldShape[];
  /** Fields the caller may set but not read, shaped from the create or update schema. */
  writeOnly: FieldShape[];
  /** The key field, when the caller may read it: rows link to their editor through it. */
  key: string | null;
  canCreate: boolean;
  canUpdate: boolean;
  canDelete: boolean;
  /** Fields the caller may set on create, and change on update. */
  createFields: ReadonlySet<string>;
  updateFields: ReadonlySet<string>;
};

/** What the logged-in user may do, read from `GET /server/specs/oas`, which lists only that (docs/api.md). */
export type Capabilities = {
  collections: CollectionShape[];
  /** Users, roles and permissions: only admins have these operations. */
  governs: boolean;
  activity: boolean;
  /** Whether the caller may list revisions, and revert an item to one (docs/api.md §14). */
  revisions: boolean;
  revert: boolean;
  /** Whether the caller may upload files (`POST /files`, docs/api.md §15). */
  uploads: boolean;
  /** Whether changes reach realtime subscribers (`info["x-realtime"]`, docs/api.md §7): else no table is live. */
  realtime: RealtimeFlag;
};

type Schema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  description?: string;
  maxLength?: number;
  properties?: Record<string, Schema>;
  $ref?: string;
  'x-primary-key'?: string;
  'x-related-collection'?: string;
  'x-related-field'?: string;
};

type Document = {
  info?: { 'x-realtime'?: unknown };
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
};

const DOCUMENT = '/server/specs/oas';

/** How an update schema describes the key (src/adapters/http/openapi/item-operations.ts). */
const KEY_NOTE = "The item's key: may be repeated, never changed.";

export async function loadCapabilities(api: ApiClient): Promise<Capabilities> {
  const document = await api.get<Document>(DOCUMENT);
  return { ...capabilitiesOf(document), realtime: new RealtimeFlag(api, realtimeOf(document)) };
}

/**
 * `info["x-realtime"]`, kept up to date for the live tables (docs/decisions/0050): read with the rest of the
 * document, and read again when it may have changed — a server restarted with realtime turned on or off
 * drops every connection, and a reconnection may reach another instance. Nothing cheaper than the document
 * says it, so a reading is reused for as long as a caller allows.
 */
export class RealtimeFlag {
  private readAt = performance.now();
  private reading: Promise<boolean> | null = null;

  constructor(
    private readonly api: ApiClient,
    private on: boolean,
  ) {}

  /** The last reading, as it stands. */
  get value(): boolean {
    return this.on;
  }

  /**
   * The flag, read again unless the last reading is younger than `maxAgeMs` (one read at a time). A read
   * that fails keeps the last reading: the caller's own request will say what is wrong.
   */
  read(maxAgeMs: number): Promise<boolean> {
    if (performance.now() - this.readAt < maxAgeMs) return Promise.resolve(this.on);
    this.reading ??= this.api
      .get<Document>(DOCUMENT)
      .then(
        (document) => {
          this.on = realtimeOf(document);
          this.readAt = performance.now();
          return this.on;
        },
        () => this.on,
      )
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }
}

function realtimeOf(document: Document): boolean {
  return document.info?.['x-realtime'] === true;
}

export function capabilitiesOf(document: Document): Omit<Capabilities, 'realtime'> {
  const schemas = document.components?.schemas ?? {};
  const collections: CollectionShape[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    const match = /^\/items\/([^/{}]+)$/.exec(path);
    if (!match || !operations.get) continue;
    const name = decodeURIComponent(match[1]!);
    const listed = operations.get as {
      responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
    };
    const item = resolve(itemRef(listed.responses?.['200']?.content?.['application/json']?.schema), schemas);
    if (!item?.properties) continue;
    const single = document.paths[`${path}/{id}`] ?? {};
    const component = componentOf(item, schemas);
    const readable = item.properties;
    const updatable = schemas[`${component}.Update`]?.properties ?? {};
    // The key is in every update schema, to be sent back, never changed: not a field to edit, read or not
    // (an unreadable key has no `x-primary-key` to name it).
    const key = Object.keys(updatable).find((field) => updatable[field]?.description === KEY_NOTE);
    const writeOnly = new Map<string, FieldShape>();
    for (const kind of ['Create', 'Update']) {
      for (const [field, schema] of Object.entries(schemas[`${component}.${kind}`]?.properties ?? {})) {
        if (kind === 'Update' && field === key) continue;
        if (!(field in readable) && !writeOnly.has(field)) writeOnly.set(field, fieldShape(field, schema));
      }
    }
    collections.push({
      name,
      fields: Object.entries(readable).map(([field, schema]) => fieldShape(field, schema)),
      writeOnly: [...writeOnly.values()],
      key: item['x-primary-key'] ?? null,
      canCreate: 'post' in operations,
      canUpdate: 'patch' in single,
      canDelete: 'delete' in single,
      createFields: propertyNames(schemas, `${component}.Create`),
      updateFields: new Set(Object.keys(updatable).filter((field) => field !== key)),
    });
  }
  collections.sort((a, b) => a.name.localeCompare(b.name));
  const { paths } = document;
  return {
    collections,
    governs: '/roles' in paths,
    activity: '/activity' in paths,
    revisions: '/revisions' in paths,
    revert: '/utils/revert/{revision}' in paths,
    uploads: Boolean(paths['/files']?.post),
  };
}

/** The item schema inside a list answer: an array of `anyOf [Item, group]`. */
function itemRef(schema: Schema | undefined): Schema | undefined {
  const items = (schema as { items?: Schema } | undefined)?.items;
  return items?.anyOf?.[0] ?? items;
}

function resolve(schema: Schema | undefined, schemas: Record<string, Schema>): Schema | undefined {
  if (!schema?.$ref) return schema;
  return schemas[schema.$ref.replace('#/components/schemas/', '')];
}

function componentOf(item: Schema, schemas: Record<string, Schema>): string {
  const entry = Object.entries(schemas).find(([, schema]) => schema === item);
  return entry ? entry[0].replace(/\.Item$/, '') : '';
}

function propertyNames(schemas: Record<string, Schema>, name: string): ReadonlySet<string> {
  return new Set(Object.keys(schemas[name]?.properties ?? {}));
}

/** The schemas a value may match: nested `anyOf`s (a nullable int8 is `anyOf [anyOf [int, digits], null]`) flattened. */
function variantsOf(schema: Schema): Schema[] {
  return schema.anyOf ? schema.anyOf.flatMap(variantsOf) : [schema];
}

function fieldShape(name: string, schema: Schema): FieldShape {
  const variants = variantsOf(schema);
  const types = variants.flatMap((variant) => [variant.type ?? []].flat());
  const value = variants.find((variant) => variant.type !== 'null') ?? schema;
  const nullable = types.includes('null');
  const relatedCollection = schema['x-related-collection'];
  const shape = {
    name,
    nullable,
    choices: [] as string[],
    setByServer: schema.description?.endsWith('Set by the server.') ?? false,
    acceptsText: types.includes('string'),
    maxLength: value.maxLength ?? null,
    related: relatedCollection
      ? { collection: relatedCollection, field: schema['x-related-field'] ?? 'id' }
      : null,
  };
  if (value.enum)
    return { ...shape, kind: 'enum', choices: value.enum.filter((v) => v !== null).map(String) };
  if (types.includes('boolean')) return { ...shape, kind: 'boolean' };
  if (types.includes('integer')) return { ...shape, kind: 'integer' };
  if (types.includes('number')) return { ...shape, kind: 'number' };
  if (value.format === 'uuid') return { ...shape, kind: 'uuid' };
  if (value.format === 'date-time') return { ...shape, kind: 'zoned-datetime' };
  if (/^Date and time without a zone/.test(value.description ?? '')) return { ...shape, kind: 'datetime' };
  if (value.format === 'date') return { ...shape, kind: 'date' };
  if (/^hh:mm:ss/.test(value.description ?? '')) return { ...shape, kind: 'time' };
  if (types.includes('string')) return { ...shape, kind: 'text' };
  return { ...shape, kind: 'json' };
}
