import type { Server } from 'node:http';

/**
 * Listens on `host`:`port`; a port already taken is said in one line naming it (`what`: the API's port,
 * the metrics port), instead of Node's EADDRINUSE error.
 */
export function listen(server: Server, port: number, host: string, what = 'port'): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`${what} ${port} on ${host} is already in use`) : error);
    });
    server.listen(port, host, () => resolve());
  });
}
