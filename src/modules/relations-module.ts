import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { itemQuery } from '../adapters/http/item-query-string.ts';
import { itemQueryParameters } from '../adapters/http/openapi/item-query-parameters.ts';
import { REFERENTIAL_ACTIONS, relationAnswer } from '../adapters/http/openapi/relation-answer.ts';
import { listMetaOf } from '../adapters/http/respond.ts';
import { ReadRules } from '../application/items/read-rules.ts';
import { CreateRelationHandler } from '../application/relations/create-relation.ts';
import { DeleteRelationHandler } from '../application/relations/delete-relation.ts';
import { GetRelationHandler } from '../application/relations/get-relation.ts';
import { ListRelationsHandler } from '../application/relations/list-relations.ts';
import type { RelationPage } from '../application/relations/relation-query.ts';
import { UpdateRelationHandler } from '../application/relations/update-relation.ts';
import { invalidPayload } from '../domain/errors.ts';
import type { QueryLimits } from '../domain/query/parse-item-query.ts';
import type { ReferentialAction } from '../domain/schema/relation.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

/** Directus spells actions in capitals; lower case is taken too, as SQL is written either way. */
const action = z
  .string()
  .transform((text) => text.toUpperCase())
  .pipe(z.enum(REFERENTIAL_ACTIONS))
  .transform((text) => text.toLowerCase() as ReferentialAction);

/** Directus bookkeeping for relations we do not have (junctions, sorting, many-to-any): only null fits. */
const unsupported = z.null().optional();

/** Directus's relation `meta`: the one-to-many name is ours to keep; its junction and sort members are not. */
const relationMeta = z
  .object({
    one_field: z.string().nullable().optional(),
    junction_field: unsupported,
    sort_field: unsupported,
    one_collection_field: unsupported,
    one_allowed_collections: unsupported,
  })
  .nullable()
  .optional();

const newRelation = z
  .object({
    collection: z.string(),
    field: z.string(),
    related_collection: z.string(),
    schema: z
      .object({
        on_delete: action.optional(),
        on_update: action.optional(),
        foreign_key_column: z
          .string()
          .optional()
          .describe('The field referred to; the related collection’s primary key when absent.'),
      })
      .nullable()
      .optional(),
    meta: relationMeta,
  })
  .transform(({ collection, field, related_collection, schema, meta }) => ({
    collection,
    field,
    relatedCollection: related_collection,
    relatedField: schema?.foreign_key_column,
    onDelete: schema?.on_delete,
    onUpdate: schema?.on_update,
    oneField: meta?.one_field,
  }));

/** Directus's PATCH body: the whole relation may come back; what can change is the referential actions. */
const relationChange = z
  .object({
    collection: z.string().optional(),
    field: z.string().optional(),
    related_collection: z.string().optional(),
    schema: z.object({ on_delete: action.optional(), on_update: action.optional() }).nullable().optional(),
    meta: relationMeta,
  })
  .transform(({ collection, field, related_collection, schema, meta }) => ({
    collection,
    field,
    relatedCollection: related_collection,
    onDelete: schema?.on_delete,
    onUpdate: schema?.on_update,
    oneField: meta?.one_field,
  }));

/**
 * The list parameters of the items less what /relations refuses (keyset cursors, aggregates, `deep`), with
 * `fields` naming the relation's own members: the document offers nothing the server answers 400 to.
 */
function relationQueryParameters(limits: QueryLimits) {
  const fields = z
    .string()
    .meta({ examples: ['collection,field,related_collection', 'field,json(schema, on_delete)'] })
    .describe(
      'Comma list of `collection`, `field`, `related_collection`, `schema`, `meta`; `*` is all of them; `json(schema, on_delete)` a value inside.',
    )
    .optional();
  const query = itemQueryParameters(limits)
    .list.omit({ after: true, aggregate: true, groupBy: true, deep: true })
    .extend({ fields });
  return { query, single: z.object({ fields }) };
}

const collectionName = z.string().describe('The collection holding the foreign key.');
const fieldName = z.string().describe('The foreign-key field.');

/** docs/api.md §7a: /relations, the foreign keys between collections. */
export const relationsModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(
    ListRelationsHandler,
    (get) =>
      new ListRelationsHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(TYPES.Clock),
        get<QueryLimits>(TYPES.QueryLimits),
      ),
  );
  bind(
    GetRelationHandler,
    (get) =>
      new GetRelationHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(TYPES.Clock),
        get<QueryLimits>(TYPES.QueryLimits),
      ),
  );
  bind(CreateRelationHandler, (get) => new CreateRelationHandler(get(TYPES.SchemaEditor)));
  bind(
    UpdateRelationHandler,
    (get) => new UpdateRelationHandler(get(TYPES.SchemaCatalog), get(TYPES.SchemaEditor)),
  );
  bind(
    DeleteRelationHandler,
    (get) => new DeleteRelationHandler(get(TYPES.SchemaCatalog), get(TYPES.SchemaEditor)),
  );

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const listRelations = get(ListRelationsHandler);
    const getRelation = get(GetRelationHandler);
    const createRelation = get(CreateRelationHandler);
    const updateRelation = get(UpdateRelationHandler);
    const deleteRelation = get(DeleteRelationHandler);
    const { query, single } = relationQueryParameters(get<QueryLimits>(TYPES.QueryLimits));
    return {
      register(router, { readBody, authenticated, respond }) {
        const sendPage = (ctx: Parameters<typeof respond.send>[0], page: RelationPage) =>
          respond.sendJson(ctx, JSON.stringify(page.data), listMetaOf(page));
        router.get(
          '/relations',
          authenticated(async (ctx, caller) =>
            sendPage(ctx, await listRelations.execute(caller, { query: itemQuery(ctx) })),
          ),
        );
        router.post(
          '/relations',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, newRelation);
            respond.send(ctx, await createRelation.execute(caller, body));
          }),
        );
        router.get(
          '/relations/:collection',
          authenticated(async (ctx, caller) =>
            sendPage(
              ctx,
              await listRelations.execute(caller, {
                collection: ctx.params.collection!,
                query: itemQuery(ctx),
              }),
            ),
          ),
        );
        router.get(
          '/relations/:collection/:field',
          authenticated(async (ctx, caller) => {
            const { collection, field } = ctx.params;
            respond.send(
              ctx,
              await getRelation.execute(caller, {
                collection: collection!,
                field: field!,
                query: itemQuery(ctx),
              }),
            );
          }),
        );
        router.patch(
          '/relations/:collection/:field',
          authenticated(async (ctx, caller) => {
            const { collection, field } = ctx.params;
            const change = await readBody(ctx, relationChange);
            if (
              (change.collection !== undefined && change.collection !== collection) ||
              (change.field !== undefined && change.field !== field)
            ) {
              throw invalidPayload('"collection" and "field" must be those of the path.');
            }
            respond.send(
              ctx,
              await updateRelation.execute(caller, { ...change, collection: collection!, field: field! }),
            );
          }),
        );
        router.delete(
          '/relations/:collection/:field',
          authenticated(async (ctx, caller) => {
            const { collection, field } = ctx.params;
            await deleteRelation.execute(caller, { collection: collection!, field: field! });
            respond.noContent(ctx);
          }),
        );
      },
      api: () => {
        const relations = { tag: 'relations' } as const;
        const collection = { pathParameters: { collection: collectionName } };
        const field = { pathParameters: { collection: collectionName, field: fieldName } };
        const list = z.array(relationAnswer);
        return {
          tags: [
            {
              name: 'relations',
              description:
                'The foreign keys between collections: many-to-one fields and the one-to-many fields they give the other side.',
            },
          ],
          schemas: { Relation: relationAnswer },
          operations: [
            {
              ...relations,
              audience: 'anyone',
              method: 'get',
              path: '/relations',
              operationId: 'listRelations',
              summary: 'List relations',
              description:
                'Admins see every relation; others those between collections they may read, through a foreign-key field they may read.',
              query,
              answers: [{ status: 200, description: 'The relations you may see.', body: list, form: 'list' }],
              errors: [400, 401, 403],
            },
            {
              ...relations,
              audience: 'admin',
              method: 'post',
              path: '/relations',
              operationId: 'createRelation',
              summary: 'Create a relation',
              description: 'Adds a foreign-key constraint; existing values must all refer to existing items.',
              body: newRelation,
              answers: [{ status: 200, description: 'The created relation.', body: relationAnswer }],
              errors: [400, 401, 403, 404, 409, 413, 415],
            },
            {
              ...relations,
              ...collection,
              audience: 'anyone',
              method: 'get',
              path: '/relations/:collection',
              operationId: 'listRelationsOfCollection',
              summary: 'List the relations of a collection',
              description: 'The relations whose foreign key the collection holds.',
              query,
              answers: [{ status: 200, description: 'Its relations you may see.', body: list, form: 'list' }],
              errors: [400, 401, 403, 404],
            },
            {
              ...relations,
              ...field,
              audience: 'anyone',
              method: 'get',
              path: '/relations/:collection/:field',
              operationId: 'readRelation',
              summary: 'Read a relation',
              query: single,
              answers: [{ status: 200, description: 'The relation.', body: relationAnswer }],
              errors: [400, 401, 403, 404],
            },
            {
              ...relations,
              ...field,
              audience: 'admin',
              method: 'patch',
              path: '/relations/:collection/:field',
              operationId: 'updateRelation',
              summary: 'Change what a relation does on delete and update',
              description:
                'The constraint is made again under its name, in one transaction; its two ends do not change.',
              body: relationChange,
              answers: [{ status: 200, description: 'The changed relation.', body: relationAnswer }],
              errors: [400, 401, 403, 404, 413, 415],
            },
            {
              ...relations,
              ...field,
              audience: 'admin',
              method: 'delete',
              path: '/relations/:collection/:field',
              operationId: 'deleteRelation',
              summary: 'Drop a relation',
              description: 'Drops the foreign-key constraint; the field and its values stay.',
              answers: [{ status: 204, description: 'Dropped.' }],
              errors: [401, 403, 404],
            },
          ],
        };
      },
    };
  });
});
