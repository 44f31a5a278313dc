import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP forwarder in front of a real server (PostgreSQL) that a test takes down and brings back on the
 * same port, so the application sees its database vanish and return without the database being touched.
 */
export type TcpProxy = {
  readonly port: number;
  /** Forwards new connections to the target again. */
  up(): Promise<void>;
  /** Refuses new connections and cuts the open ones: a database server that went away. */
  down(): Promise<void>;
  /** Accepts connections but never answers, and cuts the open ones: a network that went silent. */
  stall(): Promise<void>;
  close(): Promise<void>;
};

type Mode = 'forward' | 'stall';

/** Starts forwarding from an ephemeral port on 127.0.0.1 to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let mode: Mode = 'forward';
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A cut connection errors on both sides; the proxy has nothing to report.
    socket.on('error', () => {});
  };

  const server = createServer((client) => {
    track(client);
    if (mode === 'stall') return;
    const upstream = createConnection(target);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });

  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      cutAll();
    });

  await listen(0);
  const { port } = server.address() as { port: number };
  const switchTo = async (next: Mode) => {
    if (next !== mode) cutAll();
    mode = next;
    if (!server.listening) await listen(port);
  };

  return {
    port,
    up: () => switchTo('forward'),
    stall: () => switchTo('stall'),
    down: stopListening,
    close: stopListening,
  };
}
