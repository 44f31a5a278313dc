import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import { FileTypeMediaSniffer } from '../adapters/file-type/file-type-media-sniffer.ts';
import { sendAsset, servedAsset } from '../adapters/http/asset-answer.ts';
import { filesApi } from '../adapters/http/file-api.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import type { HttpContext } from '../adapters/http/http-state.ts';
import { itemQuery } from '../adapters/http/item-query-string.ts';
import { multipartFiles } from '../adapters/http/multipart-files.ts';
import { listMetaOf } from '../adapters/http/respond.ts';
import { searchBody, searchQuery } from '../adapters/http/search-body.ts';
import { CreateFilesHandler } from '../application/files/create-files.ts';
import { DeleteFilesHandler } from '../application/files/delete-files.ts';
import { FileBytes } from '../application/files/file-bytes.ts';
import { FILES_REACH } from '../application/files/file-keys.ts';
import { ImageDimensions } from '../application/files/image-dimensions.ts';
import { ImageVariants } from '../application/files/image-variants.ts';
import { ReadAssetHandler } from '../application/files/read-asset.ts';
import { ReplaceFileHandler } from '../application/files/replace-file.ts';
import { UploadFilesHandler } from '../application/files/upload-files.ts';
import type { UploadSettings } from '../application/files/upload-settings.ts';
import { AggregateItemsHandler } from '../application/items/aggregate-items.ts';
import { CreateItemsHandler } from '../application/items/create-items.ts';
import { DeleteItemsHandler } from '../application/items/delete-items.ts';
import { GetItemHandler } from '../application/items/get-item.ts';
import { ItemCursors } from '../application/items/item-cursors.ts';
import { ListItemsHandler } from '../application/items/list-items.ts';
import { ReadBack } from '../application/items/read-back.ts';
import { ReadRules } from '../application/items/read-rules.ts';
import { UpdateItemsHandler } from '../application/items/update-items.ts';
import { WriteRules } from '../application/items/write-rules.ts';
import type { Clock } from '../application/ports/clock.ts';
import type { MediaSniffer } from '../application/ports/media-sniffer.ts';
import type { Accountability } from '../domain/accountability.ts';
import type { RawItemQuery } from '../domain/query/parse-item-query.ts';
import { FILES_COLLECTION } from '../domain/schema/collection-schema.ts';
import { factoryBinder, type Resolve } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

/** Checked by the item handlers against the files' columns, as /items bodies are. */
const anyJson = z.unknown();

/** Whether the request's body is a multipart upload rather than JSON. */
function isMultipart(ctx: HttpContext): boolean {
  return ctx.request.is('multipart/form-data') === 'multipart/form-data';
}

/**
 * An upload refused before its body was read to the end: the connection is closed after the answer, so
 * the rest is never read (Node would otherwise read and discard it to reuse the connection).
 */
async function closingOnRefusal<T>(ctx: HttpContext, upload: () => Promise<T>): Promise<T> {
  try {
    return await upload();
  } catch (error) {
    if (!ctx.req.complete) ctx.res.shouldKeepAlive = false;
    throw error;
  }
}

/**
 * /files and /assets (docs/api.md §15): the files' rows through the item handlers, reaching the files'
 * system collection; uploads and replacements streamed to the file store; the bytes served to whoever may
 * read the row.
 */
export const filesModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  const config = (get: Resolve) => get<AppConfig>(TYPES.Config);
  const uploadSettings = (get: Resolve): UploadSettings => ({
    maxUploadSize: config(get).storage.maxUploadSize,
    allowedTypes: config(get).storage.allowedTypes,
  });
  const sniffer: MediaSniffer = new FileTypeMediaSniffer();
  const responseMaxBytes = (get: Resolve) => config(get).query.responseMaxBytes;
  const batchMax = (get: Resolve) => config(get).query.batchMax;
  const updateFiles = (get: Resolve) =>
    new UpdateItemsHandler(
      get(TYPES.SchemaCatalog),
      get(ReadRules),
      get(WriteRules),
      get(TYPES.ItemStore),
      get(ReadBack),
      get(TYPES.Clock),
      batchMax(get),
      FILES_REACH,
    );

  bind(FileBytes, (get) => new FileBytes(get(TYPES.FileStorage)));
  bind(ImageDimensions, (get) => new ImageDimensions(get(TYPES.FileStorage), get(TYPES.ImageTransformer)));
  bind(
    UploadFilesHandler,
    (get) =>
      new UploadFilesHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(WriteRules),
        get(TYPES.ItemStore),
        get(ReadBack),
        get(TYPES.Clock),
        get(TYPES.FileStorage),
        sniffer,
        uploadSettings(get),
        get(ImageDimensions),
      ),
  );
  bind(
    ReplaceFileHandler,
    (get) =>
      new ReplaceFileHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(WriteRules),
        get(TYPES.ItemStore),
        updateFiles(get),
        get(FileBytes),
        get(TYPES.Clock),
        get(TYPES.FileStorage),
        sniffer,
        uploadSettings(get),
        get(ImageDimensions),
      ),
  );
  bind(
    CreateFilesHandler,
    (get) =>
      new CreateFilesHandler(
        new CreateItemsHandler(
          get(TYPES.SchemaCatalog),
          get(ReadRules),
          get(WriteRules),
          get(TYPES.ItemStore),
          get(ReadBack),
          get(TYPES.Clock),
          batchMax(get),
          FILES_REACH,
        ),
      ),
  );
  bind(
    DeleteFilesHandler,
    (get) =>
      new DeleteFilesHandler(
        new DeleteItemsHandler(
          get(TYPES.SchemaCatalog),
          get(ReadRules),
          get(WriteRules),
          get(TYPES.ItemStore),
          get(TYPES.Clock),
          batchMax(get),
          FILES_REACH,
        ),
        get(FileBytes),
      ),
  );
  bind(
    ReadAssetHandler,
    (get) =>
      new ReadAssetHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(TYPES.ItemStore),
        get(TYPES.FileStorage),
        get(TYPES.Clock),
      ),
  );

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const listFiles = new ListItemsHandler(
      get(TYPES.SchemaCatalog),
      get(ReadRules),
      get(TYPES.ItemStore),
      get(TYPES.Clock),
      get(TYPES.QueryLimits),
      responseMaxBytes(get),
      new ItemCursors(config(get).auth.secret),
      FILES_REACH,
    );
    const aggregateFiles = new AggregateItemsHandler(
      get(TYPES.SchemaCatalog),
      get(ReadRules),
      get(TYPES.ItemStore),
      get(TYPES.Clock),
      get(TYPES.QueryLimits),
      responseMaxBytes(get),
      FILES_REACH,
    );
    const getFile = new GetItemHandler(
      get(TYPES.SchemaCatalog),
      get(ReadRules),
      get(TYPES.ItemStore),
      get(TYPES.Clock),
      get(TYPES.QueryLimits),
      responseMaxBytes(get),
      FILES_REACH,
    );
    const update = updateFiles(get);
    const upload = get(UploadFilesHandler);
    const replace = get(ReplaceFileHandler);
    const create = get(CreateFilesHandler);
    const remove = get(DeleteFilesHandler);
    const readAsset = get(ReadAssetHandler);
    const variants = get(ImageVariants);
    const inlineTypes = config(get).storage.inlineTypes;
    const clock = get<Clock>(TYPES.Clock);
    return {
      register(router, { readBody, authenticated, respond }) {
        const list = async (ctx: HttpContext, caller: Accountability, query: RawItemQuery) => {
          if (Object.hasOwn(query, 'aggregate') || Object.hasOwn(query, 'groupBy')) {
            respond.sendJson(
              ctx,
              await aggregateFiles.execute(caller, { collection: FILES_COLLECTION, query }),
            );
            return;
          }
          const result = await listFiles.execute(caller, { collection: FILES_COLLECTION, query });
          respond.sendJson(ctx, result.json, listMetaOf(result));
        };
        router.get(
          '/files',
          authenticated((ctx, caller) => list(ctx, caller, itemQuery(ctx))),
        );
        router.register(
          '/files',
          ['SEARCH'],
          authenticated(async (ctx, caller) =>
            list(ctx, caller, searchQuery(ctx, await readBody(ctx, searchBody))),
          ),
        );
        router.get(
          '/files/:id',
          authenticated(async (ctx, caller) => {
            const item = await getFile.execute(caller, {
              collection: FILES_COLLECTION,
              id: ctx.params.id!,
              query: itemQuery(ctx),
            });
            respond.sendJson(ctx, item);
          }),
        );
        router.post(
          '/files',
          authenticated(async (ctx, caller) => {
            if (isMultipart(ctx)) {
              const query = itemQuery(ctx);
              const result = await closingOnRefusal(ctx, () =>
                upload.execute(caller, { uploads: multipartFiles(ctx), query }),
              );
              respond.written(ctx, result);
              return;
            }
            const body = await readBody(ctx, anyJson);
            respond.written(ctx, await create.execute(caller, { body, query: itemQuery(ctx) }));
          }),
        );
        router.patch(
          '/files/:id',
          authenticated(async (ctx, caller) => {
            if (isMultipart(ctx)) {
              const query = itemQuery(ctx);
              const result = await closingOnRefusal(ctx, () =>
                replace.execute(caller, { key: ctx.params.id!, uploads: multipartFiles(ctx), query }),
              );
              respond.written(ctx, result);
              return;
            }
            const body = await readBody(ctx, anyJson);
            respond.written(
              ctx,
              await update.execute(caller, {
                collection: FILES_COLLECTION,
                key: ctx.params.id!,
                body,
                query: itemQuery(ctx),
              }),
            );
          }),
        );
        router.patch(
          '/files',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, anyJson);
            respond.written(
              ctx,
              await update.execute(caller, { collection: FILES_COLLECTION, body, query: itemQuery(ctx) }),
            );
          }),
        );
        router.delete(
          '/files/:id',
          authenticated(async (ctx, caller) => {
            await remove.execute(caller, { key: ctx.params.id! });
            respond.noContent(ctx);
          }),
        );
        router.delete(
          '/files',
          authenticated(async (ctx, caller) => {
            await remove.execute(caller, { body: await readBody(ctx, anyJson) });
            respond.noContent(ctx);
          }),
        );
        // The right to read the file is settled before a transform parameter is even parsed: a hidden
        // file is the 404 of a missing one, whatever it asks for, and costs no image work.
        const asset = authenticated(async (ctx, caller) => {
          const file = await readAsset.execute(caller, ctx.params.id!);
          const variant = await variants.open(file, itemQuery(ctx), ctx.get('Accept') || undefined);
          await sendAsset(ctx, servedAsset(file, variant), inlineTypes, clock.now());
        });
        router.get('/assets/:id', asset);
        router.get('/assets/:id/:filename', asset);
      },
      api: filesApi,
    };
  });
});
