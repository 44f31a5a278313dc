import type { DescribedCollection } from '../../../application/server/describe-api.ts';
import { createSchema, itemSchema, keySchema, updateSchema } from './collection-schemas.ts';
import { componentNames } from './component-names.ts';
import { errorsOf } from './error-responses.ts';
import { FIELDS_PARAMETER, LIST_PARAMETERS } from './item-query-parameters.ts';
import type { OpenApiContext, OpenApiPart } from './openapi-part.ts';
import type { JsonSchema, Operation, PathItem, Response } from './openapi-types.ts';
import type { ProfileShapes } from './profile-shapes.ts';

type CollectionApi = { paths: Record<string, PathItem>; schemas: Record<string, JsonSchema> };

/** The /items part of the document: the collections the caller may use, each under a tag of its name. */
export function itemsApi({ description, shapes }: OpenApiContext): OpenApiPart {
  const names = componentNames(description.collections.map((collection) => collection.name));
  const part: Required<OpenApiPart> = { tags: [], paths: {}, schemas: {} };
  for (const collection of description.collections) {
    const api = collectionApi(collection, names.get(collection.name)!, shapes, description.limits.batchMax);
    part.tags.push(collection.name);
    Object.assign(part.paths, api.paths);
    Object.assign(part.schemas, api.schemas);
  }
  return part;
}

/**
 * The /items operations of one collection that the caller may perform (docs/api.md §4, §5), and the schemas
 * they use, named `<component>.Item`, `.Create`, `.Update`. `component` is the collection's name made fit
 * for a component name, unique in the document; operation ids are `<component>_list` and so on (no `.`,
 * which Swagger UI escapes in its anchors), so they cannot meet the fixed ones, which have no `_`.
 */
function collectionApi(
  collection: DescribedCollection,
  component: string,
  shapes: ProfileShapes,
  batchMax: number,
): CollectionApi {
  const { actions, primaryKey, name } = collection;
  const ref = (kind: string): JsonSchema => ({ $ref: `#/components/schemas/${component}.${kind}` });
  const schemas: Record<string, JsonSchema> = {};
  if (actions.read) schemas[`${component}.Item`] = itemSchema(collection);
  if (actions.create) schemas[`${component}.Create`] = createSchema(collection);
  if (actions.update) schemas[`${component}.Update`] = updateSchema(collection);

  const item = ref('Item');
  const many = (schema: JsonSchema): JsonSchema => ({ type: 'array', items: schema, maxItems: batchMax });
  const key = primaryKey ? keySchema(primaryKey) : null;
  const keys = key ? many(key) : null;
  const byQuery: JsonSchema = {
    type: 'object',
    required: ['filter'],
    properties: { filter: { type: 'object', description: 'A filter, as the `filter` query parameter.' } },
  };
  const operation = (
    suffix: string,
    summary: string,
    rest: Omit<Operation, 'operationId' | 'summary' | 'tags'>,
  ) => ({
    operationId: `${component}_${suffix}`,
    summary,
    tags: [name],
    ...rest,
  });
  const body = (schema: JsonSchema) => ({ required: true, content: { 'application/json': { schema } } });
  // A write answers with what it wrote as the caller may read it, or 204 when the caller may read none.
  const written = (description: string, schema: JsonSchema): Record<string, Response> => ({
    ...(actions.read ? { 200: shapes.ok(description, schema) } : {}),
    204: { description: actions.read ? 'Written; you may read none of it.' : 'Written.' },
  });
  const writeErrors = errorsOf(400, 401, 403, 404, 409, 413, 415);

  const list: PathItem = {};
  const single: PathItem = {};
  if (actions.read) {
    list.get = operation('list', `List ${name}`, {
      parameters: LIST_PARAMETERS,
      responses: { 200: shapes.list('The items you may see.', item), ...errorsOf(400, 401, 403) },
    });
    single.get = operation('get', `Read one of ${name}`, {
      parameters: [FIELDS_PARAMETER],
      responses: { 200: shapes.ok('The item.', item), ...errorsOf(400, 401, 403, 404) },
    });
  }
  if (actions.create) {
    list.post = operation('create', `Create ${name}`, {
      description: `One item, or an array of at most ${batchMax}, in one transaction.`,
      parameters: [FIELDS_PARAMETER],
      requestBody: body({ oneOf: [ref('Create'), many(ref('Create'))] }),
      responses: {
        ...written('The created item, or items.', { oneOf: [item, many(item)] }),
        ...errorsOf(400, 401, 403, 409, 413, 415),
      },
    });
  }
  if (actions.update) {
    const keyed: JsonSchema[] = primaryKey
      ? [
          many({ allOf: [ref('Update'), { required: [primaryKey.name] }] }),
          {
            type: 'object',
            required: ['keys', 'data'],
            properties: { keys: keys!, data: ref('Update') },
          },
        ]
      : [];
    list.patch = operation('updateMany', `Update several ${name}`, {
      description:
        'Partial items each with its key, the same change for some keys, or for the rows a filter matches.',
      parameters: [FIELDS_PARAMETER],
      requestBody: body({
        oneOf: [
          ...keyed,
          {
            type: 'object',
            required: ['query', 'data'],
            properties: { query: byQuery, data: ref('Update') },
          },
        ],
      }),
      responses: { ...written('The updated items.', many(item)), ...writeErrors },
    });
    single.patch = operation('update', `Update one of ${name}`, {
      parameters: [FIELDS_PARAMETER],
      requestBody: body(ref('Update')),
      responses: { ...written('The updated item.', item), ...writeErrors },
    });
  }
  if (actions.delete) {
    list.delete = operation('deleteMany', `Delete several ${name}`, {
      requestBody: body({
        oneOf: [
          ...(keys ? [keys, { type: 'object', required: ['keys'], properties: { keys } } as JsonSchema] : []),
          { type: 'object', required: ['query'], properties: { query: byQuery } },
        ],
      }),
      responses: { 204: { description: 'Deleted.' }, ...errorsOf(400, 401, 403, 404, 413, 415) },
    });
    single.delete = operation('delete', `Delete one of ${name}`, {
      responses: { 204: { description: 'Deleted.' }, ...errorsOf(401, 403, 404) },
    });
  }

  const path = `/items/${encodeURIComponent(name)}`;
  const paths: Record<string, PathItem> = { [path]: list };
  if (key && Object.keys(single).length > 0) {
    paths[`${path}/{id}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, description: 'The primary key.', schema: key }],
      ...single,
    };
  }
  return { paths, schemas };
}
