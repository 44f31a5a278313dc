/**
 * A datagate HTTP app in a process of its own, files stored on disk under FILES_DIR, on PostgreSQL when
 * DATABASE_URL is set, else on an in-memory PGlite: the memory tests sample its RSS from outside. Prints
 * one JSON line, `{ "url", "token" }` (an admin's access token), once it listens; ends on SIGTERM.
 */
import { LocalDiskFileStorage } from '../../src/adapters/local-disk/local-disk-file-storage.ts';
import { IN_MEMORY } from '../../src/adapters/persistence/mikro-orm/embedded-postgres.ts';
import { openMikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import { TYPES } from '../../src/container.ts';
import { startTestApp } from './test-app.ts';

const url = process.env.DATABASE_URL;
const persistence = await openMikroOrmPersistence(
  url ? { url, dataDir: process.env.FILES_DIR! } : { dataDir: IN_MEMORY },
);
await persistence.migrate();
const storage = new LocalDiskFileStorage(process.env.FILES_DIR!);
const app = await startTestApp({
  persistence,
  env: { STORAGE_MAX_UPLOAD_SIZE: '2gb' },
  rebind: (container) => container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(storage),
});
const token = (await app.login(await app.seedAdmin())).access_token;
process.stdout.write(`${JSON.stringify({ url: app.url, token })}\n`);
process.on('SIGTERM', () => {
  void app.close().finally(() => process.exit(0));
});
