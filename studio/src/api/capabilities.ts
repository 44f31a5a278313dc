import type { ApiClient } from './client.ts';

/** How a field is shown and edited, from its schema in the caller's OpenAPI document. */
export type FieldKind =
  | 'text'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'datetime'
  | 'date'
  | 'uuid'
  | 'json'
  | 'enum';

export type FieldShape = {
  name: string;
  kind: FieldKind;
  nullable: boolean;
  /** The allowed values of an enum field. */
  choices: string[];
  setByServer: boolean;
};

/** A collection as the caller may use it: what it may read, and which writes it may make. */
export type CollectionShape = {
  name: string;
  /** The readable fields, in the table's order. */
  fields: FieldShape[];
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
};

type Schema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  description?: string;
  properties?: Record<string, Schema>;
  $ref?: string;
  'x-primary-key'?: string;
};

type Document = {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
};

export async function loadCapabilities(api: ApiClient): Promise<Capabilities> {
  return capabilitiesOf(await api.get<Document>('/server/specs/oas'));
}

export function capabilitiesOf(document: Document): Capabilities {
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
    collections.push({
      name,
      fields: Object.entries(item.properties).map(([field, schema]) => fieldShape(field, schema)),
      key: item['x-primary-key'] ?? null,
      canCreate: 'post' in operations,
      canUpdate: 'patch' in single,
      canDelete: 'delete' in single,
      createFields: propertyNames(schemas, `${componentOf(item, schemas)}.Create`),
      updateFields: propertyNames(schemas, `${componentOf(item, schemas)}.Update`),
    });
  }
  collections.sort((a, b) => a.name.localeCompare(b.name));
  return { collections, governs: '/roles' in document.paths, activity: '/activity' in document.paths };
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

function fieldShape(name: string, schema: Schema): FieldShape {
  const variants = schema.anyOf ?? [schema];
  const types = variants.flatMap((variant) => [variant.type ?? []].flat());
  const value = variants.find((variant) => variant.type !== 'null') ?? schema;
  const nullable = types.includes('null');
  const shape = {
    name,
    nullable,
    choices: [] as string[],
    setByServer: schema.description === 'Set by the server.',
  };
  if (value.enum)
    return { ...shape, kind: 'enum', choices: value.enum.filter((v) => v !== null).map(String) };
  if (types.includes('boolean')) return { ...shape, kind: 'boolean' };
  if (types.includes('integer')) return { ...shape, kind: 'integer' };
  if (types.includes('number')) return { ...shape, kind: 'number' };
  if (value.format === 'uuid') return { ...shape, kind: 'uuid' };
  if (value.format === 'date-time' || /Date and time/.test(value.description ?? ''))
    return { ...shape, kind: 'datetime' };
  if (value.format === 'date') return { ...shape, kind: 'date' };
  if (types.includes('string')) return { ...shape, kind: 'text' };
  return { ...shape, kind: 'json' };
}
