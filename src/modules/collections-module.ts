import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import { collectionMetaChange, fieldMeta, newCollectionMeta } from '../adapters/http/directus-meta.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { collectionAnswer, fieldAnswer } from '../adapters/http/openapi/answer-schemas.ts';
import { mustBe } from '../adapters/http/payload-issue-message.ts';
import { ClearSchemaCacheHandler } from '../application/collections/clear-schema-cache.ts';
import { CreateCollectionHandler } from '../application/collections/create-collection.ts';
import { CreateFieldHandler } from '../application/collections/create-field.ts';
import { DeleteCollectionHandler } from '../application/collections/delete-collection.ts';
import { DeleteFieldHandler } from '../application/collections/delete-field.ts';
import { GetCollectionHandler } from '../application/collections/get-collection.ts';
import { GetFieldHandler } from '../application/collections/get-field.ts';
import { ListCollectionsHandler } from '../application/collections/list-collections.ts';
import { ListFieldsHandler } from '../application/collections/list-fields.ts';
import { UpdateCollectionHandler } from '../application/collections/update-collection.ts';
import { UpdateFieldHandler } from '../application/collections/update-field.ts';
import type { CollectionWatch } from '../application/realtime/collection-watch.ts';
import { CREATABLE_FIELD_TYPES } from '../domain/schema/field-type.ts';
import { countsByItself } from '../domain/schema/new-field.ts';
import { factoryBinder, type Resolve } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

const newField = z
  .strictObject({
    field: z.string(),
    type: z.enum(CREATABLE_FIELD_TYPES),
    schema: z
      .strictObject({
        is_primary_key: z.boolean().optional(),
        is_nullable: z.boolean().optional(),
        is_unique: z.boolean().optional(),
        default_value: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
        max_length: z.number().int().min(1).max(10_485_760).optional(),
        has_auto_increment: z
          .boolean()
          .optional()
          .describe(
            "Directus's flag, taken when it says what datagate does: true exactly for an integer or bigInteger primary key without a default, which counts by itself.",
          ),
      })
      .optional(),
    meta: fieldMeta,
  })
  .superRefine(({ type, schema }, context) => {
    const asked = schema?.has_auto_increment;
    const counts = countsByItself({
      type,
      isPrimaryKey: schema?.is_primary_key,
      defaultValue: schema?.default_value,
    });
    if (asked === undefined || asked === counts) return;
    context.addIssue({
      code: 'custom',
      path: ['schema', 'has_auto_increment'],
      params: {
        mustBe: `${counts}: here an integer or bigInteger primary key without a default counts by itself (its keys may still be given), and no other field does`,
      },
    });
  })
  .transform(({ field, type, schema = {}, meta }) => ({
    field,
    type,
    isPrimaryKey: schema.is_primary_key,
    isNullable: schema.is_nullable,
    isUnique: schema.is_unique,
    defaultValue: schema.default_value,
    maxLength: schema.max_length,
    meta,
  }));

/** Directus's PATCH of a field: its `meta`, of which datagate keeps nothing; the column itself is not changed here. */
const fieldChange = z.strictObject({ meta: fieldMeta });

const collectionName = z.string().describe("The collection's name.");
const fieldName = z.string().describe("The field's name.");
const collectionList = z.array(collectionAnswer);
const fieldList = z.array(fieldAnswer);

const createCollectionBody = z.strictObject({
  collection: z.string(),
  // Directus's way of asking for a table rather than a folder; every collection here is a table.
  schema: z
    .strictObject({}, { error: mustBe('{} (a collection is always a table: there are no folders)') })
    .optional()
    .describe("Directus's `{}` (a table); accepted and changes nothing."),
  meta: newCollectionMeta,
  fields: z.array(newField).max(1000),
});

const updateCollectionBody = z.strictObject({ meta: collectionMetaChange });

/** docs/api.md §7: /collections, /fields and /utils/cache/clear, all for admins. */
export const collectionsModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  const watch = (get: Resolve) => get<CollectionWatch | null>(TYPES.CollectionWatch) ?? undefined;
  bind(ListCollectionsHandler, (get) => new ListCollectionsHandler(get(TYPES.SchemaCatalog), watch(get)));
  bind(GetCollectionHandler, (get) => new GetCollectionHandler(get(TYPES.SchemaCatalog), watch(get)));
  bind(CreateCollectionHandler, (get) => new CreateCollectionHandler(get(TYPES.SchemaEditor)));
  bind(
    DeleteCollectionHandler,
    (get) => new DeleteCollectionHandler(get(TYPES.SchemaCatalog), get(TYPES.SchemaEditor)),
  );
  bind(ListFieldsHandler, (get) => new ListFieldsHandler(get(TYPES.SchemaCatalog)));
  bind(GetFieldHandler, (get) => new GetFieldHandler(get(TYPES.SchemaCatalog)));
  bind(
    CreateFieldHandler,
    (get) => new CreateFieldHandler(get(TYPES.SchemaCatalog), get(TYPES.SchemaEditor)),
  );
  bind(UpdateFieldHandler, (get) => new UpdateFieldHandler(get(TYPES.SchemaCatalog)));
  bind(
    DeleteFieldHandler,
    (get) => new DeleteFieldHandler(get(TYPES.SchemaCatalog), get(TYPES.SchemaEditor)),
  );
  bind(
    UpdateCollectionHandler,
    (get) =>
      new UpdateCollectionHandler(get(TYPES.SchemaCatalog), get(TYPES.SchemaEditor), {
        watch: watch(get),
        // With realtime off nothing prunes the change log: a collection is not watched then, only unwatched.
        start: get<AppConfig>(TYPES.Config).realtime.enabled ? watch(get) : undefined,
      }),
  );
  bind(ClearSchemaCacheHandler, (get) => new ClearSchemaCacheHandler(get(TYPES.SchemaCatalog)));

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const listCollections = get(ListCollectionsHandler);
    const getCollection = get(GetCollectionHandler);
    const createCollection = get(CreateCollectionHandler);
    const deleteCollection = get(DeleteCollectionHandler);
    const updateCollection = get(UpdateCollectionHandler);
    const listFields = get(ListFieldsHandler);
    const getField = get(GetFieldHandler);
    const createField = get(CreateFieldHandler);
    const deleteField = get(DeleteFieldHandler);
    const updateField = get(UpdateFieldHandler);
    const clearSchemaCache = get(ClearSchemaCacheHandler);
    return {
      register(router, { readBody, authenticated, respond }) {
        router.get(
          '/collections',
          authenticated(async (ctx, caller) => respond.send(ctx, await listCollections.execute(caller))),
        );
        router.post(
          '/collections',
          authenticated(async (ctx, caller) => {
            const { collection, fields, meta } = await readBody(ctx, createCollectionBody);
            const accountability = meta?.accountability;
            respond.send(
              ctx,
              await createCollection.execute(caller, {
                collection,
                fields,
                ...(accountability === undefined ? {} : { accountability }),
              }),
            );
          }),
        );
        router.get(
          '/collections/:collection',
          authenticated(async (ctx, caller) =>
            respond.send(ctx, await getCollection.execute(caller, { collection: ctx.params.collection! })),
          ),
        );
        router.patch(
          '/collections/:collection',
          authenticated(async (ctx, caller) => {
            const { meta } = await readBody(ctx, updateCollectionBody);
            const accountability = meta?.accountability;
            const realtimeWatch = meta?.realtime_watch;
            respond.send(
              ctx,
              await updateCollection.execute(caller, {
                collection: ctx.params.collection!,
                ...(accountability === undefined ? {} : { accountability }),
                ...(realtimeWatch === undefined ? {} : { realtimeWatch }),
              }),
            );
          }),
        );
        router.delete(
          '/collections/:collection',
          authenticated(async (ctx, caller) => {
            await deleteCollection.execute(caller, { collection: ctx.params.collection! });
            respond.noContent(ctx);
          }),
        );
        router.get(
          '/fields',
          authenticated(async (ctx, caller) => respond.send(ctx, await listFields.execute(caller, {}))),
        );
        router.get(
          '/fields/:collection',
          authenticated(async (ctx, caller) =>
            respond.send(ctx, await listFields.execute(caller, { collection: ctx.params.collection! })),
          ),
        );
        router.post(
          '/fields/:collection',
          authenticated(async (ctx, caller) => {
            const field = await readBody(ctx, newField);
            respond.send(
              ctx,
              await createField.execute(caller, { collection: ctx.params.collection!, field }),
            );
          }),
        );
        router.get(
          '/fields/:collection/:field',
          authenticated(async (ctx, caller) => {
            const { collection, field } = ctx.params;
            respond.send(ctx, await getField.execute(caller, { collection: collection!, field: field! }));
          }),
        );
        router.patch(
          '/fields/:collection/:field',
          authenticated(async (ctx, caller) => {
            const { collection, field } = ctx.params;
            const { meta } = await readBody(ctx, fieldChange);
            respond.send(
              ctx,
              await updateField.execute(caller, {
                collection: collection!,
                field: field!,
                ...(meta === undefined ? {} : { meta }),
              }),
            );
          }),
        );
        router.delete(
          '/fields/:collection/:field',
          authenticated(async (ctx, caller) => {
            const { collection, field } = ctx.params;
            await deleteField.execute(caller, { collection: collection!, field: field! });
            respond.noContent(ctx);
          }),
        );
        router.post(
          '/utils/cache/clear',
          authenticated(async (ctx, caller) => {
            await clearSchemaCache.execute(caller);
            respond.noContent(ctx);
          }),
        );
      },
      api: () => {
        const admin = { audience: 'admin' } as const;
        const collections = { ...admin, tag: 'collections' } as const;
        const fields = { ...admin, tag: 'fields' } as const;
        const collection = { pathParameters: { collection: collectionName } };
        const field = { pathParameters: { collection: collectionName, field: fieldName } };
        const deleted = { status: 204, description: 'Deleted.' };
        return {
          tags: [
            { name: 'collections', description: 'The tables, for admins: list, create and drop them.' },
            { name: 'fields', description: 'The columns of a table, for admins: list, add and drop them.' },
            { name: 'utils', description: 'Maintenance, for admins.' },
          ],
          schemas: { Collection: collectionAnswer, Field: fieldAnswer },
          operations: [
            {
              ...collections,
              method: 'get',
              path: '/collections',
              operationId: 'listCollections',
              summary: 'List collections',
              answers: [{ status: 200, description: 'Every collection.', body: collectionList }],
              errors: [401, 403],
            },
            {
              ...collections,
              method: 'post',
              path: '/collections',
              operationId: 'createCollection',
              summary: 'Create a collection',
              body: createCollectionBody,
              answers: [{ status: 200, description: 'The created collection.', body: collectionAnswer }],
              errors: [400, 401, 403, 409, 413, 415],
            },
            {
              ...collections,
              ...collection,
              method: 'get',
              path: '/collections/:collection',
              operationId: 'readCollection',
              summary: 'Read a collection',
              answers: [{ status: 200, description: 'The collection.', body: collectionAnswer }],
              errors: [401, 403, 404],
            },
            {
              ...collections,
              ...collection,
              method: 'patch',
              path: '/collections/:collection',
              operationId: 'updateCollection',
              summary: 'Change what writes to a collection record, and whether writes by hand are events',
              body: updateCollectionBody,
              answers: [{ status: 200, description: 'The collection.', body: collectionAnswer }],
              errors: [400, 401, 403, 404, 413, 415],
            },
            {
              ...collections,
              ...collection,
              method: 'delete',
              path: '/collections/:collection',
              operationId: 'deleteCollection',
              summary: 'Drop a collection',
              description: 'The table and its rows are dropped.',
              answers: [deleted],
              errors: [401, 403, 404],
            },
            {
              ...fields,
              method: 'get',
              path: '/fields',
              operationId: 'listAllFields',
              summary: 'List the fields of every collection',
              answers: [{ status: 200, description: 'Every field, by collection.', body: fieldList }],
              errors: [401, 403],
            },
            {
              ...fields,
              ...collection,
              method: 'get',
              path: '/fields/:collection',
              operationId: 'listFields',
              summary: 'List the fields of a collection',
              answers: [{ status: 200, description: 'Its fields.', body: fieldList }],
              errors: [401, 403, 404],
            },
            {
              ...fields,
              ...collection,
              method: 'post',
              path: '/fields/:collection',
              operationId: 'createField',
              summary: 'Add a field to a collection',
              body: newField,
              answers: [{ status: 200, description: 'The created field.', body: fieldAnswer }],
              errors: [400, 401, 403, 404, 409, 413, 415],
            },
            {
              ...fields,
              ...field,
              method: 'get',
              path: '/fields/:collection/:field',
              operationId: 'readField',
              summary: 'Read a field',
              answers: [{ status: 200, description: 'The field.', body: fieldAnswer }],
              errors: [401, 403, 404],
            },
            {
              ...fields,
              ...field,
              method: 'patch',
              path: '/fields/:collection/:field',
              operationId: 'updateField',
              summary: "Send a field's Directus settings",
              description:
                'Presentation settings are accepted and not kept; what `meta` asks of the API must already hold for the field. Nothing changes: the answer is the field.',
              body: fieldChange,
              answers: [{ status: 200, description: 'The field, unchanged.', body: fieldAnswer }],
              errors: [400, 401, 403, 404, 413, 415],
            },
            {
              ...fields,
              ...field,
              method: 'delete',
              path: '/fields/:collection/:field',
              operationId: 'deleteField',
              summary: 'Drop a field',
              description: 'The column and its values are dropped; the primary key cannot be.',
              answers: [deleted],
              errors: [400, 401, 403, 404],
            },
            {
              ...admin,
              tag: 'utils',
              method: 'post',
              path: '/utils/cache/clear',
              operationId: 'clearCache',
              summary: 'Read the schema again',
              description: 'For tables changed by hand, when the server has not noticed yet.',
              answers: [{ status: 204, description: 'Cleared.' }],
              errors: [401, 403],
            },
          ],
        };
      },
    };
  });
});
