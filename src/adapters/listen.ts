import type { Server } from 'node:http';

/**
 * Why an address cannot be listened on, for the codes an operator's HOST or PORT causes. Left as Node's
 * error, ENOTFOUND read as "the database cannot be reached" (the code means a host name, and the database's
 * is the usual one), on the embedded database too.
 */
const CANNOT_LISTEN: Readonly<Record<string, string>> = {
  ENOTFOUND: 'the host name is not found',
  EAI_AGAIN: 'the host name could not be resolved',
  EADDRNOTAVAIL: 'no network interface of this machine has that address',
  EACCES: 'permission denied (ports below 1024 need privileges)',
};

/**
 * Listens on `host`:`port`; a port already taken, or an address this machine cannot listen on, is said in
 * one line naming it (`what`: the API's port, the metrics port), instead of Node's error.
 */
export function listen(server: Server, port: number, host: string, what = 'port'): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === undefined ? undefined : CANNOT_LISTEN[error.code];
      if (error.code === 'EADDRINUSE') reject(new Error(`${what} ${port} on ${host} is already in use`));
      else if (reason)
        reject(new Error(`${what} ${port} on ${host} cannot be listened on: ${reason} (${error.code})`));
      else reject(error);
    });
    server.listen(port, host, () => resolve());
  });
}
