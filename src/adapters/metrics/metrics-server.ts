import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen } from '../listen.ts';
import { promClient } from './prom-client-module.ts';

export type MetricsServer = {
  /** The port it listens on (the one taken when `metrics.port` is 0). */
  readonly port: number;
  close(): Promise<void>;
};

/**
 * `GET /metrics` on a listener of its own (`metrics.host`:`metrics.port`), apart from the API's: the API
 * port faces clients, this one a Prometheus server (docs/decisions/0021-metrics.md). Nothing else is
 * served here: any other path is 404, any other method 405.
 */
export async function startMetricsServer(
  exposition: () => Promise<string>,
  address: { host: string; port: number },
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') return answer(response, 404, 'not found\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return answer(response, 405, 'method not allowed\n');
    }
    exposition().then(
      (text) => answer(response, 200, text, promClient().prometheusContentType),
      // The workers did not all answer in time (a worker being replaced): the scrape fails, the next may not.
      () => answer(response, 503, 'metrics unavailable\n'),
    );
  });
  await listen(server, address.port, address.host, 'metrics port');
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function answer(
  response: ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
): void {
  response.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  response.end(body);
}
