import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { importAnswer } from '../adapters/http/import-answer.ts';
import { importUpload } from '../adapters/http/import-upload.ts';
import { singleParameter } from '../adapters/http/item-query-string.ts';
import { StreamingImportRecordReader } from '../adapters/import/streaming-import-record-reader.ts';
import { ImportItemsHandler } from '../application/items/import-items.ts';
import { ImportSlots } from '../application/items/import-slots.ts';
import { ReadRules } from '../application/items/read-rules.ts';
import { WriteRules } from '../application/items/write-rules.ts';
import { invalidQuery } from '../domain/query/invalid-query.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

const IMPORT_MODES = { all: 'all', batch: 'batch' } as const;

const chunkAnswer = z.object({
  rows: z
    .tuple([z.number().int(), z.number().int()])
    .describe('The first and last row of the chunk, 1-based.'),
  inserted: z.number().int().optional().describe('Rows the chunk committed.'),
  error: z
    .object({ message: z.string(), extensions: z.record(z.string(), z.unknown()) })
    .optional()
    .describe('Why the chunk was refused, as an error answer would say it; nothing of the chunk is written.'),
});

const importAnswerSchema = z.object({
  inserted: z.number().int().describe('Rows written.'),
  chunks: z.array(chunkAnswer).optional().describe('Batch mode only: each chunk, in row order.'),
});

/**
 * POST /utils/import/:collection (docs/api.md §13): a CSV, JSON or NDJSON file's rows created as items, read
 * as the upload arrives. The handler is also what `datagate import` runs.
 */
export const importModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(ImportItemsHandler, (get) => {
    const limits = get<AppConfig>(TYPES.Config).import;
    return new ImportItemsHandler(
      get(TYPES.SchemaCatalog),
      get(ReadRules),
      get(WriteRules),
      get(TYPES.ItemStore),
      new StreamingImportRecordReader(),
      get(TYPES.Clock),
      new ImportSlots(limits.concurrencyPerUser),
      {
        maxBytes: limits.maxBytes,
        maxRows: limits.maxRows,
        chunkRows: limits.chunkRows,
        maxRecordChars: limits.maxRecordLength,
      },
    );
  });

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const importItems = get(ImportItemsHandler);
    return {
      register(router, { authenticated, respond }) {
        router.post(
          '/utils/import/:collection',
          authenticated(async (ctx, caller) => {
            const mode = singleParameter(ctx, 'mode') ?? 'all';
            if (!Object.hasOwn(IMPORT_MODES, mode)) {
              throw invalidQuery('"mode" is "all" (the default) or "batch".', {
                field: 'mode',
                reason: 'INVALID_VALUE',
              });
            }
            const upload = await importUpload(ctx);
            const result = await importItems.execute(caller, {
              collection: ctx.params.collection!,
              format: upload.format,
              bytes: upload.bytes,
              mode: IMPORT_MODES[mode as keyof typeof IMPORT_MODES],
            });
            respond.send(ctx, importAnswer(result, ctx.state.requestId));
          }),
        );
      },
      api: ({ description }) => {
        // The collections the caller may create items in, and only those: an import is a batch of creates.
        const into = description.collections
          .filter((collection) => collection.actions.create)
          .map((collection) => collection.name);
        const [first, ...rest] = into;
        return {
          tags: [{ name: 'import', description: 'Items created from a CSV, JSON or NDJSON file.' }],
          operations:
            first === undefined
              ? []
              : [
                  {
                    audience: 'anyone',
                    tag: 'import',
                    method: 'post',
                    path: '/utils/import/:collection',
                    operationId: 'importItems',
                    summary: 'Import items from a file',
                    description:
                      'The body is the file (`text/csv`, `application/json` holding an array of objects, `application/x-ndjson`), or a `multipart/form-data` upload of it. Every row is checked as `POST /items` checks an item; by default all rows or none are written, with `mode=batch` each chunk of `import.chunkRows` rows commits on its own.',
                    pathParameters: {
                      collection: z.enum([first, ...rest]).describe('A collection you may create items in.'),
                    },
                    query: z.object({
                      mode: z
                        .enum(['all', 'batch'])
                        .optional()
                        .describe('`all` (the default): one transaction; `batch`: per chunk.'),
                    }),
                    answers: [{ status: 200, description: 'The rows written.', body: importAnswerSchema }],
                    errors: [400, 401, 403, 409, 415, 429],
                  },
                ],
        };
      },
    };
  });
});
