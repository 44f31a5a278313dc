import pg from 'pg';

/**
 * Why the cases that need the PostgreSQL server cannot run here, or undefined when TEST_DATABASE_URL names
 * one (e.g. `postgresql://postgres@127.0.0.1:5432/test`). Pass it to `skippableSuite`.
 */
export const postgresSkip: string | undefined = process.env.TEST_DATABASE_URL
  ? undefined
  : 'TEST_DATABASE_URL not set';

/**
 * TEST_DATABASE_URL, or the same server's `database` when one is named. Only for the cases of a suite
 * skipped without it: they never run when it is unset.
 */
export function testDatabaseUrl(database?: string): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  if (database === undefined) return url;
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs a statement on the TEST_DATABASE_URL database: create and drop database cannot run in the one they name. */
export async function administer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
