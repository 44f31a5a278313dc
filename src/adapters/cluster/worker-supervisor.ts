import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { RestartBackoff } from './restart-backoff.ts';

export type WorkerSupervisorOptions = {
  /** How many workers to keep running. */
  readonly count: number;
  /** How long a worker may take to drain after SIGTERM (`http.shutdownTimeout`) before it is killed. */
  readonly drainTimeoutMs: number;
  readonly logger: Logger;
  readonly backoff?: RestartBackoff;
};

/** Beyond the drain itself, what a worker gets to close its database connections and exit. */
const EXIT_GRACE_MS = 5_000;

/**
 * The primary of `http.workers` > 1: forks that many workers of this same program (each runs the whole
 * HTTP server; `node:cluster` hands them the connections of one shared port in turn), replaces a worker
 * that dies, and on `stop()` drains them all. The primary itself serves nothing and holds no database
 * connection.
 */
export class WorkerSupervisor {
  private readonly startedAt = new Map<Worker, number>();
  private readonly replacements = new Set<NodeJS.Timeout>();
  private readonly backoff: RestartBackoff;
  private serving = false;
  private failedExits = 0;
  private stopped: { promise: Promise<number>; resolve(code: number): void } | undefined;

  constructor(private readonly options: WorkerSupervisorOptions) {
    this.backoff = options.backoff ?? new RestartBackoff();
  }

  /**
   * Forks the workers. Resolves with the port once every one of them listens; rejects when a worker exits
   * before any listened (a port in use, a broken start): replacing it would only fail the same way again.
   */
  start(): Promise<number> {
    return new Promise((resolve, reject) => {
      const listening = new Set<Worker>();
      cluster.on('listening', (worker, address) => {
        this.options.logger.info({ worker: worker.id, pid: worker.process.pid }, 'worker listening');
        if (this.serving) return;
        listening.add(worker);
        if (listening.size < this.options.count) return;
        this.serving = true;
        resolve(address.port);
      });
      cluster.on('exit', (worker, code, signal) => {
        const lived = Date.now() - (this.startedAt.get(worker) ?? Date.now());
        this.startedAt.delete(worker);
        listening.delete(worker);
        if (this.stopped) {
          if (code !== 0) this.failedExits++;
          if (this.startedAt.size === 0) this.stopped.resolve(this.failedExits === 0 ? 0 : 1);
          return;
        }
        if (!this.serving) {
          reject(new Error(`a worker exited (${signal ?? `code ${code}`}) before the server was up`));
          return;
        }
        const delay = this.backoff.next(lived);
        this.options.logger.warn(
          { worker: worker.id, pid: worker.process.pid, code, signal, replacedInMs: delay },
          'worker died; replacing it',
        );
        const timer = setTimeout(() => {
          this.replacements.delete(timer);
          if (!this.stopped) this.fork();
        }, delay);
        this.replacements.add(timer);
      });
      for (let n = 0; n < this.options.count; n++) this.fork();
    });
  }

  /**
   * Sends SIGTERM to every worker (each drains as a single server would) and resolves with the exit code
   * the primary should end with: 0 once all exited cleanly, 1 if one failed or had to be killed.
   */
  stop(): Promise<number> {
    if (this.stopped) return this.stopped.promise;
    let resolve!: (code: number) => void;
    const promise = new Promise<number>((done) => {
      resolve = done;
    });
    this.stopped = { promise, resolve };
    for (const timer of this.replacements) clearTimeout(timer);
    this.replacements.clear();
    if (this.startedAt.size === 0) resolve(0);
    const deadline = setTimeout(() => {
      for (const worker of this.startedAt.keys()) worker.process.kill('SIGKILL');
    }, this.options.drainTimeoutMs + EXIT_GRACE_MS);
    deadline.unref();
    for (const worker of this.startedAt.keys()) worker.process.kill('SIGTERM');
    return promise;
  }

  private fork(): void {
    this.startedAt.set(cluster.fork(), Date.now());
  }
}
