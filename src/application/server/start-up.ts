import { DomainError } from '../../domain/errors.ts';
import type { Readiness } from './readiness.ts';

export type StartUpOptions = {
  readonly retryIntervalMs: number;
  /** Why the database is unavailable, in words safe to show anyone (the health check serves them). */
  describe(error: unknown): string;
  /** Called when an attempt fails for another reason than the attempt before it, not on every retry. */
  onFailure(reason: string, error: unknown): void;
  /** Called once, when the work has succeeded after `failures` failed attempts. */
  onReady(failures: number): void;
};

/**
 * The server's start-up work, retried every `retryIntervalMs` while the database cannot be reached, so
 * that a server started before its database (or during an outage) comes up by itself. Any other failure
 * ends the retries: a bad configuration or a broken migration does not mend itself, and the process must
 * stop rather than stay half up. `readiness` follows the work; `done` resolves with its result, or rejects
 * with such a failure, or when `stop()` comes first.
 */
export class StartUp<T> {
  readonly done: Promise<T>;
  private settle!: { resolve(value: T): void; reject(error: unknown): void };
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failures = 0;
  private lastReason: string | undefined;

  constructor(
    private readonly work: () => Promise<T>,
    private readonly readiness: Readiness,
    private readonly options: StartUpOptions,
  ) {
    this.done = new Promise<T>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // A server stopped while starting rejects `done`; that is no error of whoever did not wait for it.
    this.done.catch(() => {});
  }

  /**
   * Makes the first attempt. Returns when it succeeded, or failed because the database is unavailable
   * (retries then go on in the background); throws any other failure, so the caller never starts serving.
   */
  async start(): Promise<void> {
    try {
      this.succeeded(await this.work());
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      this.failed(error);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.settle.reject(new Error('The server stopped before its start-up work was done.'));
  }

  private async retry(): Promise<void> {
    try {
      const result = await this.work();
      if (!this.stopped) this.succeeded(result);
    } catch (error) {
      if (this.stopped) return;
      if (isUnavailable(error)) this.failed(error);
      else this.settle.reject(error);
    }
  }

  private succeeded(result: T): void {
    this.readiness.markReady();
    this.options.onReady(this.failures);
    this.settle.resolve(result);
  }

  private failed(error: unknown): void {
    this.failures++;
    const reason = this.options.describe(error);
    this.readiness.stillStarting(reason);
    if (reason !== this.lastReason) this.options.onFailure(reason, error);
    this.lastReason = reason;
    this.timer = setTimeout(() => void this.retry(), this.options.retryIntervalMs);
  }
}

/**
 * SERVICE_BUSY too: no pool connection came within the wait, which at start, with nothing else running, means
 * the connections never got through (a network that swallows them), not requests holding them.
 */
function isUnavailable(error: unknown): boolean {
  return (
    error instanceof DomainError && (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'SERVICE_BUSY')
  );
}
