import { LRUCache } from 'lru-cache';
import { type ZodType, z } from 'zod';
import type { DescribedCollection, DescribedField } from '../../../application/server/describe-api.ts';
import { aggregateGroupAnswer } from './answer-schemas.ts';
import type { Answer, ApiContext, ApiOperation, ApiPart } from './api-operation.ts';
import { columnSchema, noted, nullableWhen } from './column-schema.ts';
import { componentNames } from './component-names.ts';
import { type ItemQueryParameters, itemQueryParameters } from './item-query-parameters.ts';

/**
 * The /items part of the document: the collections the caller may use, each under a tag of its name,
 * with schemas made from the live columns and what the caller may do with each (describe-api.ts).
 */
export function itemsApi({ description }: ApiContext): ApiPart {
  const names = componentNames(description.collections.map((collection) => collection.name));
  const query = itemQueryParameters(description.limits);
  const part: Required<ApiPart> = { tags: [], operations: [], schemas: {} };
  for (const collection of description.collections) {
    part.tags.push({ name: collection.name, description: `The items of \`${collection.name}\`.` });
    const component = names.get(collection.name)!;
    const { batchMax } = description.limits;
    const key = JSON.stringify([collection, component, description.limits]);
    let api = MADE.get(key);
    if (!api) {
      api = new CollectionApi(collection, component, query, batchMax);
      MADE.set(key, api);
    }
    part.operations.push(...api.operations);
    Object.assign(part.schemas, api.schemas);
  }
  return part;
}

/**
 * Each collection's operations as last made, by everything they are made from: while the columns and
 * the caller's rights stay the same, the same zod objects come back, and their written schemas with them
 * (document-schemas.ts). Bounded: a role per table and a few tables each is far below it.
 */
const MADE = new LRUCache<string, CollectionApi>({ max: 500 });

/**
 * An item as the caller reads it: no field is required, since `fields` narrows the answer. With a readable
 * json field, `fields=json(field, path)` adds keys of the request's making (docs/api.md §4), so other keys
 * are allowed.
 */
function itemSchema(collection: DescribedCollection): ZodType {
  const readable = collection.fields.filter((field) => field.read);
  const item = objectOf(
    readable,
    (field) => relatedNamed(readValue(field), field),
    () => true,
  );
  const open = readable.some((field) => field.type === 'json')
    ? item.catchall(z.unknown().describe('A value inside a json field: `json(field, path)` in `fields`.'))
    : item;
  return keyedItem(open, collection);
}

function readValue(field: DescribedField): ZodType {
  const schema = columnValue(field, field.nullable || field.readOnSomeRowsOnly);
  if (field.setByServer) return noted(schema, 'Set by the server.');
  if (field.readOnSomeRowsOnly) return noted(schema, 'Null on the rows your permissions hide it on.');
  return schema;
}

/**
 * Which collection a foreign key points at, as `x-related-collection` and `x-related-field` (docs/api.md
 * §16): a client offering the related items to pick from needs them. Only there when the caller may read
 * that collection (describe-api.ts), as `GET /relations` shows it.
 */
function relatedNamed(schema: ZodType, field: DescribedField): ZodType {
  return field.related
    ? schema.meta({
        'x-related-collection': field.related.collection,
        'x-related-field': field.related.field,
      })
    : schema;
}

/**
 * Which readable field is the key, as `x-primary-key`: a client building links to single items (the studio)
 * needs the field's name, and the path parameter only says `id`.
 */
function keyedItem(item: z.ZodObject, collection: DescribedCollection): z.ZodObject {
  const key = collection.primaryKey?.name;
  return key !== undefined &&
    !collection.keyHidden &&
    collection.fields.some((field) => field.name === key && field.read)
    ? item.meta({ 'x-primary-key': key })
    : item;
}

/** A new item: the fields the caller may set; those nothing else fills are required. */
function createSchema(collection: DescribedCollection): ZodType {
  return objectOf(
    collection.fields.filter((field) => field.create),
    (field) => {
      const schema = columnValue(field, field.nullable);
      // PostgreSQL's expression, not a JSON value, so a note rather than a default.
      return field.defaultValue === null ? schema : noted(schema, `Database default: ${field.defaultValue}.`);
    },
    (field) => !field.requiredOnCreate,
  );
}

/** The fields an update may change, all optional; the key may be sent back but not changed. */
function updateSchema(collection: DescribedCollection): z.ZodObject {
  return objectOf(
    collection.fields.filter((field) => field.update),
    (field) => {
      const schema = columnValue(field, field.nullable);
      return field.primaryKey ? noted(schema, "The item's key: may be repeated, never changed.") : schema;
    },
    () => true,
  );
}

/** Unknown fields are refused, and fields the caller may not use are forbidden: a strict object. */
function objectOf(
  fields: ReadonlyArray<DescribedField>,
  schemaOf: (field: DescribedField) => ZodType,
  optional: (field: DescribedField) => boolean,
): z.ZodObject {
  return z.strictObject(
    Object.fromEntries(
      fields.map((field) => {
        const schema = schemaOf(field);
        return [field.name, optional(field) ? schema.optional() : schema];
      }),
    ),
  );
}

const columnValue = (field: DescribedField, nullable: boolean) =>
  nullableWhen(columnSchema(field), field.type, nullable);

const byQuery = z.object({
  filter: z.record(z.string(), z.unknown()).describe('A filter, as the `filter` query parameter.'),
});

/**
 * The /items operations of one collection that the caller may perform (docs/api.md §4, §5), and the
 * schemas they use, named `<component>.Item`, `.Create`, `.Update`, `.KeyedUpdate`. `component` is the collection's name
 * made fit for a component name, unique in the document; operation ids are `<component>_list` and so on
 * (no `.`, which Swagger UI escapes in its anchors), so they cannot meet the fixed ones, which have no `_`.
 */
class CollectionApi {
  readonly schemas: Record<string, ZodType> = {};
  private readonly item?: ZodType;
  private readonly create?: ZodType;
  private readonly update?: z.ZodObject;
  private readonly key: ZodType | null;
  private groups?: ZodType;
  readonly operations: ApiOperation[];

  constructor(
    private readonly collection: DescribedCollection,
    private readonly component: string,
    private readonly query: ItemQueryParameters,
    private readonly batchMax: number,
  ) {
    const { actions, primaryKey } = collection;
    if (actions.read) this.item = this.named('Item', itemSchema(collection));
    if (actions.create) this.create = this.named('Create', createSchema(collection));
    if (actions.update) this.update = this.named('Update', updateSchema(collection));
    this.key =
      primaryKey && !collection.keyHidden
        ? columnSchema({ ...primaryKey, maxLength: null }).describe('The primary key.')
        : null;
    this.operations = this.make();
  }

  private make(): ApiOperation[] {
    const { actions, name } = this.collection;
    const path = `/items/${encodeURIComponent(name)}`;
    const single = `${path}/:id`;
    const fields = this.query.single;
    const keyed = this.key ? { pathParameters: { id: this.key } } : null;
    const operations: ApiOperation[] = [];
    const add = (suffix: string, rest: Omit<ApiOperation, 'operationId' | 'tag' | 'audience'>) => {
      if (rest.path === single && !keyed) return;
      operations.push({ operationId: `${this.component}_${suffix}`, tag: name, audience: 'anyone', ...rest });
    };
    const writeErrors = [400, 401, 403, 404, 409, 413, 415] as const;
    const item = this.item;
    if (item) {
      add('list', {
        method: 'get',
        path,
        summary: `List ${name}`,
        description:
          'The items you may see; with `aggregate` or `groupBy`, the groups of them instead (docs/api.md §4b).',
        query: this.query.list,
        answers: [
          {
            status: 200,
            description: 'The items you may see, or their groups.',
            body: this.listBody(item),
            form: 'list',
          },
        ],
        errors: [400, 401, 403],
      });
      add('get', {
        method: 'get',
        path: single,
        ...keyed,
        summary: `Read one of ${name}`,
        query: fields,
        answers: [{ status: 200, description: 'The item.', body: item }],
        errors: [400, 401, 403, 404],
      });
    }
    if (this.create) {
      add('create', {
        method: 'post',
        path,
        summary: `Create ${name}`,
        description: `One item, or an array of at most ${this.batchMax}, in one transaction.`,
        query: fields,
        body: z.union([this.create, this.many(this.create)]),
        answers: this.written('The created item, or items.', item && z.union([item, this.many(item)])),
        errors: [400, 401, 403, 409, 413, 415],
      });
    }
    if (this.update) {
      const { primaryKey } = this.collection;
      const byKeys =
        primaryKey && this.key
          ? [
              this.many(this.named('KeyedUpdate', this.update.extend({ [primaryKey.name]: this.key }))),
              z.object({ keys: this.many(this.key), data: this.update }),
            ]
          : [];
      add('updateMany', {
        method: 'patch',
        path,
        summary: `Update several ${name}`,
        description:
          'Partial items each with its key, the same change for some keys, or for the rows a filter matches.',
        query: fields,
        body: z.union([...byKeys, z.object({ query: byQuery, data: this.update })]),
        answers: this.written('The updated items.', item && this.many(item)),
        errors: [...writeErrors],
      });
      add('update', {
        method: 'patch',
        path: single,
        ...keyed,
        summary: `Update one of ${name}`,
        query: fields,
        body: this.update,
        answers: this.written('The updated item.', item),
        errors: [...writeErrors],
      });
    }
    if (actions.delete) {
      const keys = this.key ? [this.many(this.key), z.object({ keys: this.many(this.key) })] : [];
      add('deleteMany', {
        method: 'delete',
        path,
        summary: `Delete several ${name}`,
        body: z.union([...keys, z.object({ query: byQuery })]),
        answers: [{ status: 204, description: 'Deleted.' }],
        errors: [400, 401, 403, 404, 413, 415],
      });
      add('delete', {
        method: 'delete',
        path: single,
        ...keyed,
        summary: `Delete one of ${name}`,
        answers: [{ status: 204, description: 'Deleted.' }],
        errors: [401, 403, 404],
      });
    }
    return operations;
  }

  /** Made once per collection, so that its written schema is found again (profile-shapes.ts). */
  private listBody(item: ZodType): ZodType {
    this.groups ??= z.union([item, aggregateGroupAnswer]);
    return this.groups;
  }

  private named<S extends ZodType>(kind: string, schema: S): S {
    this.schemas[`${this.component}.${kind}`] = schema;
    return schema;
  }

  private many(schema: ZodType) {
    return z.array(schema).max(this.batchMax);
  }

  /** A write answers with what it wrote as the caller may read it, or 204 when the caller may read none. */
  private written(description: string, body: ZodType | undefined): Answer[] {
    return [
      ...(body ? [{ status: 200, description, body }] : []),
      { status: 204, description: body ? 'Written; you may read none of it.' : 'Written.' },
    ];
  }
}
