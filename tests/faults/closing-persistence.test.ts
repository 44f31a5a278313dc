import { spawn } from 'node:child_process';
import { CompiledQuery } from 'kysely';
import * as assert from 'uvu/assert';
import { openMikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { postgresSkip } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from './throwaway-database.ts';

/** Far beyond what any case needs: past it, something waits forever and the case says what. */
const GIVE_UP_MS = 120_000;

const ADMIN = { email: 'root@example.com', password: 'root-password-123' };

function settledWithin<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const givenUp = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} never finished`)), GIVE_UP_MS);
  });
  return Promise.race([work, givenUp]).finally(() => clearTimeout(timer));
}

const test = skippableSuite<{ database: ThrowawayDatabase }>('closing the store on PostgreSQL', postgresSkip);

test.before(async (context) => {
  context.database = await createThrowawayDatabase('closing');
});

test.after(async ({ database }) => {
  await database.drop();
});

test('a statement still waiting for a new connection does not hold the close', async ({ database }) => {
  const warnings: string[] = [];
  const persistence = await openMikroOrmPersistence({
    url: database.url(),
    dataDir: 'unused',
    pool: { min: 0, max: 4 },
    timeouts: { connectMs: 5000, queryMs: 5000 },
    // Closing gives up on a part after a while and warns: the case is that nothing had to be given up on.
    warn: (message) => warnings.push(message),
  });
  // The pool is empty: the statement asks for a connection that opens only after the close has begun.
  const statement = persistence.orm.em.fork().getKysely().executeQuery(CompiledQuery.raw('select 1'));
  const outcome = statement.then(
    () => 'answered',
    () => 'refused',
  );
  await settledWithin(persistence.close(), 'closing the store');
  assert.equal(warnings, []);
  assert.ok(['answered', 'refused'].includes(await outcome));
});

test('one-shot commands in a row end their process by themselves', async ({ database }) => {
  const script = new URL('./one-shot-commands.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', script, '8'], {
    env: {
      ...process.env,
      DATABASE_URL: database.url(),
      SECRET: 'a-test-secret-of-at-least-32-characters',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
    },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const code = await settledWithin(exited, `the commands' process (${output.slice(-500)})`);
    assert.is(code, 0, output);
    assert.match(output, /done 8/);
    assert.not.match(output, /did not close/);
  } finally {
    child.kill('SIGKILL');
  }
});

test.run();
