import { get } from 'node:http';

/** A GET on a connection of its own, so the cluster's round robin hands each one to the next worker. */
export function freshGet(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent: false, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    }).on('error', reject);
  });
}
