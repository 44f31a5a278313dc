import pg from 'pg';

/** A database of its own on the TEST_DATABASE_URL server, dropped after; its name says which test made it. */
export type ThrowawayDatabase = {
  readonly name: string;
  /** TEST_DATABASE_URL pointed at this database, optionally through another port (a proxy). */
  url(port?: number): string;
  /** Runs SQL in this database on a connection of its own. */
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
};

export async function createThrowawayDatabase(purpose: string): Promise<ThrowawayDatabase> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) throw new Error('TEST_DATABASE_URL is not set');
  const name = `datagate_${purpose}_${process.pid}_${Date.now().toString(36)}`;
  const url = (port?: number) => {
    const parsed = new URL(server);
    parsed.pathname = `/${name}`;
    if (port !== undefined) parsed.port = String(port);
    return parsed.toString();
  };
  const withClient = async <T>(connectionString: string, work: (client: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  await withClient(server, (client) => client.query(`create database ${client.escapeIdentifier(name)}`));
  return {
    name,
    url,
    query: (text, values) => withClient(url(), async (client) => (await client.query(text, values)).rows),
    drop: async () => {
      await withClient(server, (client) =>
        client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`),
      );
    },
  };
}
