import type { Locker } from '@tus/server';
import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import { failureAnswer } from '../adapters/http/failure-answer.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { tusMethodOverride } from '../adapters/http/tus-method-override.ts';
import type { ClosingPart } from '../adapters/persistence/close-in-turn.ts';
import type { TusResumableUploads } from '../adapters/tus/tus-resumable-uploads.ts';
import { UploadFilesHandler } from '../application/files/upload-files.ts';
import type { Clock } from '../application/ports/clock.ts';
import type { FileStorage } from '../application/ports/file-storage.ts';
import type { Metrics } from '../application/ports/metrics.ts';
import type { UnfinishedUploads } from '../application/ports/unfinished-uploads.ts';
import { notFound } from '../domain/errors.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

const TUS_PATH = '/files/tus';
/** The methods of the upload collection and of one upload (OPTIONS answers the protocol's capabilities). */
const CREATE = ['POST', 'OPTIONS'];
const CONTINUE = ['HEAD', 'PATCH', 'DELETE', 'OPTIONS'];
/** An upload's methods as routed: a POST there stands for the PATCH or DELETE it names (tus-method-override.ts). */
const CONTINUE_ROUTED = [...CONTINUE, 'POST'];

/**
 * Any method at /files/tus while it is off: 404, as for a path nobody serves (the router would answer 405,
 * from the methods of /files/:id).
 */
const notMounted = async () => {
  throw notFound('Route');
};

/** The locks on uploads, and the closing of what they hold open (the PostgreSQL locks' pool). */
type Locks = { readonly locker: Locker; close(): Promise<void> };

/** The uploads as the first request at /files/tus made them, and the closing of their locks. */
type Loaded = { readonly uploads: TusResumableUploads; close(): Promise<void> };

/**
 * Resumable uploads at /files/tus (docs/api.md §15, docs/decisions/0041), when `storage.tus.enabled`: the
 * uploads' parts in the file store, a lock per upload in PostgreSQL when instances share a server
 * (`database.url`), in process otherwise (the embedded database is one process's own), and the finished
 * file committed by the same handler as POST /files. Off, nothing is mounted: the path answers 404.
 * @tus/server and the adapters on it are imported by the first request there, not at start (~90 ms of
 * CPU; docs/decisions/0045), as TUS is opt-in and most servers never see such a request. The locks' pool
 * closes with the server, once its requests have ended (`closeServerParts`).
 */
export const tusModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  // Per container: the module's bindings are made again for each container that loads it.
  let loaded: Promise<Loaded> | undefined;
  bind<ClosingPart>(TYPES.ClosingPart, () => ({
    name: 'the upload locks',
    close: async () => {
      // Uploads that never loaded opened nothing; nor did a load that failed.
      const uploads = await loaded?.catch(() => undefined);
      await uploads?.close();
    },
  }));
  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const config = get<AppConfig>(TYPES.Config);
    if (!config.storage.tus.enabled) {
      return {
        register(router) {
          router.register(TUS_PATH, CREATE, notMounted);
          router.register(`${TUS_PATH}/:upload`, CONTINUE_ROUTED, notMounted);
        },
      };
    }
    const clock = get<Clock>(TYPES.Clock);
    const logger = get<Logger>(TYPES.Logger);
    const metrics = get<Metrics>(TYPES.Metrics);
    const upload = get(UploadFilesHandler);
    const storage = get<FileStorage>(TYPES.FileStorage);
    const { url, connectTimeout } = config.database;
    const { expiry, lockTimeout, maxUnfinished } = config.storage.tus;
    const unfinished = get<UnfinishedUploads>(TYPES.UnfinishedUploads);
    const locks = async (): Promise<Locks> => {
      if (url) {
        const { PostgresTusLocker } = await import('../adapters/tus/postgres-tus-locker.ts');
        const locker = new PostgresTusLocker({ url, connectTimeout }, lockTimeout);
        return { locker, close: () => locker.close() };
      }
      const { MemoryLocker } = await import('@tus/server');
      return { locker: new MemoryLocker({ acquireLockTimeout: lockTimeout }), close: async () => {} };
    };
    const load = async (): Promise<Loaded> => {
      const [{ TusResumableUploads }, { FileStorageTusStore }, { locker, close }] = await Promise.all([
        import('../adapters/tus/tus-resumable-uploads.ts'),
        import('../adapters/tus/file-storage-tus-store.ts'),
        locks(),
      ]);
      const uploads = new TusResumableUploads({
        path: TUS_PATH,
        store: new FileStorageTusStore(storage, clock, expiry, { uploads: unfinished, max: maxUnfinished }),
        locker,
        maxUploadSize: config.storage.maxUploadSize,
        admit: (caller, head) => upload.admit(caller, head),
        complete: (caller, file) => upload.execute(caller, { uploads: only(file), query: {} }),
        written: (result) => {
          if (!result) return { status_code: 204, body: '' };
          const wrapped = config.http.profile === 'directus' ? `{"data":${result.json}}` : result.json;
          return { status_code: 200, body: wrapped };
        },
        failed: (error, requestId) => {
          const response = failureAnswer(error, requestId, metrics);
          if (response.unexpected) logger.error({ err: error, requestId }, 'resumable upload failed');
          return {
            status_code: response.status,
            body: JSON.stringify(response.body),
            headers: { ...response.headers, 'Content-Type': 'application/json; charset=utf-8' },
          };
        },
        now: () => clock.now(),
      });
      return { uploads, close };
    };
    return {
      register(router, { authenticated }) {
        const serve = authenticated(async (ctx, caller) => {
          loaded ??= load();
          const { uploads } = await loaded;
          await uploads.accept(caller, ctx.req);
          // @tus/server writes the answer itself.
          ctx.respond = false;
          await uploads.handle(caller, ctx.state.requestId, ctx.req, ctx.res);
        });
        router.register(TUS_PATH, CREATE, serve);
        router.register(`${TUS_PATH}/:upload`, CONTINUE_ROUTED, [
          tusMethodOverride(CONTINUE.join(', ')),
          serve,
        ]);
      },
    };
  });
});

async function* only<T>(item: T): AsyncGenerator<T> {
  yield item;
}
