import { performance } from 'node:perf_hooks';
import type { MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type { DatabaseHealth, HealthCheckResult } from '../../../application/ports/database-health.ts';
import { unreachableReason } from '../database-unreachable.ts';

const DEFAULT_TIMEOUT_MS = 2000;

/**
 * Answers the health endpoint with a `select 1`. Never throws and never waits longer than `timeoutMs`: a
 * health check that hangs with the database is useless to the orchestrator asking.
 */
export class MikroOrmDatabaseHealth implements DatabaseHealth {
  constructor(
    private readonly orm: MikroORM,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {}

  async check(): Promise<HealthCheckResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    try {
      const query = this.orm.em
        .fork()
        .getKysely()
        .executeQuery(SELECT_ONE)
        .then(() => 'ok' as const);
      const outcome = await Promise.race([query, timedOut]);
      if (outcome === 'timeout') {
        // The query may still settle later; nobody is listening any more.
        query.catch(() => {});
        return {
          status: 'error',
          detail: `no answer within ${this.timeoutMs} ms`,
          responseTimeMs: elapsed(),
        };
      }
      return { status: 'ok', responseTimeMs: elapsed() };
    } catch (error) {
      return { status: 'error', detail: describe(error), responseTimeMs: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }
}

const SELECT_ONE = CompiledQuery.raw('select 1');

/**
 * Names the failure in fixed words and its code only: driver messages can carry host names, user names or
 * parts of the connection string, and this detail is served to unauthenticated callers.
 */
function describe(error: unknown): string {
  const reason = unreachableReason(error);
  if (reason) return reason;
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `database error ${code}` : 'database unavailable';
}
