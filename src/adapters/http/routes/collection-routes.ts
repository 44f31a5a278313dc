import type { Router } from '@koa/router';
import { z } from 'zod';
import { CREATABLE_FIELD_TYPES } from '../../../domain/schema/field-type.ts';
import type { HttpState } from '../http-state.ts';
import type { RouteKit } from './route-kit.ts';

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
      })
      .optional(),
  })
  .transform(({ field, type, schema = {} }) => ({
    field,
    type,
    isPrimaryKey: schema.is_primary_key,
    isNullable: schema.is_nullable,
    isUnique: schema.is_unique,
    defaultValue: schema.default_value,
    maxLength: schema.max_length,
  }));

const createCollectionBody = z.strictObject({ collection: z.string(), fields: z.array(newField).max(1000) });

/** API.md §7: /collections, /fields and /utils/cache/clear, all for admins. */
export function registerCollectionRoutes(
  router: Router<HttpState>,
  { handlers, readBody, authenticated, respond }: RouteKit,
): void {
  router.get(
    '/collections',
    authenticated(async (ctx, caller) => respond.send(ctx, await handlers.listCollections.execute(caller))),
  );
  router.post(
    '/collections',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, createCollectionBody);
      respond.send(ctx, await handlers.createCollection.execute(caller, body));
    }),
  );
  router.get(
    '/collections/:collection',
    authenticated(async (ctx, caller) =>
      respond.send(ctx, await handlers.getCollection.execute(caller, { collection: ctx.params.collection! })),
    ),
  );
  router.delete(
    '/collections/:collection',
    authenticated(async (ctx, caller) => {
      await handlers.deleteCollection.execute(caller, { collection: ctx.params.collection! });
      respond.noContent(ctx);
    }),
  );
  router.get(
    '/fields/:collection',
    authenticated(async (ctx, caller) =>
      respond.send(ctx, await handlers.listFields.execute(caller, { collection: ctx.params.collection! })),
    ),
  );
  router.post(
    '/fields/:collection',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, newField);
      respond.send(
        ctx,
        await handlers.createField.execute(caller, { collection: ctx.params.collection!, field: body }),
      );
    }),
  );
  router.get(
    '/fields/:collection/:field',
    authenticated(async (ctx, caller) =>
      respond.send(
        ctx,
        await handlers.getField.execute(caller, {
          collection: ctx.params.collection!,
          field: ctx.params.field!,
        }),
      ),
    ),
  );
  router.delete(
    '/fields/:collection/:field',
    authenticated(async (ctx, caller) => {
      await handlers.deleteField.execute(caller, {
        collection: ctx.params.collection!,
        field: ctx.params.field!,
      });
      respond.noContent(ctx);
    }),
  );
  router.post(
    '/utils/cache/clear',
    authenticated(async (ctx, caller) => {
      await handlers.clearSchemaCache.execute(caller);
      respond.noContent(ctx);
    }),
  );
}
