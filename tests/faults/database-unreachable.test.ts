import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { unavailableError, unreachableReason } from '../../src/adapters/persistence/database-unreachable.ts';
import { DomainError, serviceUnavailable } from '../../src/domain/errors.ts';

const withCode = (code: string, message = 'driver text naming db.internal:5432 and user app') =>
  Object.assign(new Error(message), { code });

const unreachable = suite('which database failures mean "unreachable" (503)');

const UNREACHABLE: Array<[string, unknown, string]> = [
  ['nothing listens', withCode('ECONNREFUSED'), 'connection refused (ECONNREFUSED)'],
  ['connection reset', withCode('ECONNRESET'), 'connection reset (ECONNRESET)'],
  ['socket timeout', withCode('ETIMEDOUT'), 'connection timed out (ETIMEDOUT)'],
  ['unknown host', withCode('ENOTFOUND'), 'host name not found (ENOTFOUND)'],
  [
    'pg connect timeout',
    new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }),
    'connection timed out',
  ],
  ['server went away', new Error('Connection terminated unexpectedly'), 'connection lost'],
  ['silent network', new Error('Query read timeout'), 'no answer from the database'],
  ['SQLSTATE 08006', withCode('08006'), 'database connection failed (08006)'],
  ['database dropped 3D000', withCode('3D000'), 'database does not exist (3D000)'],
  ['admin shutdown 57P01', withCode('57P01'), 'database server shutting down (57P01)'],
  ['crash shutdown 57P02', withCode('57P02'), 'database server crashed (57P02)'],
  ['cannot connect now 57P03', withCode('57P03'), 'database server starting up (57P03)'],
  ['too many connections 53300', withCode('53300'), 'too many database connections (53300)'],
  ['statement_timeout 57014', withCode('57014'), 'query timed out (57014)'],
  ['wrapped by MikroORM', new DriverException(withCode('ECONNREFUSED')), 'connection refused (ECONNREFUSED)'],
  [
    'deep in a cause chain',
    new Error('outer', { cause: new Error('middle', { cause: withCode('EPIPE') }) }),
    'connection closed (EPIPE)',
  ],
];
for (const [name, error, reason] of UNREACHABLE) {
  unreachable(`${name} → ${reason}`, () => {
    assert.is(unreachableReason(error), reason);
    const translated = unavailableError(error);
    assert.instance(translated, DomainError);
    assert.is(translated!.code, 'SERVICE_UNAVAILABLE');
    assert.is(translated!.message, serviceUnavailable().message);
    assert.is(translated!.cause, error, 'the driver error stays available to logs');
    assert.not.match(reason, /db\.internal|5432|user app/);
  });
}

const OTHER: Array<[string, unknown]> = [
  ['unique violation', new UniqueConstraintViolationException(withCode('23505'))],
  ['bad value', withCode('22P02')],
  ['undefined table', withCode('42P01')],
  ['a domain error', serviceUnavailable()],
  ['a plain bug', new TypeError('cannot read properties of undefined')],
  ['not an Error', 'ECONNREFUSED'],
  ['a message merely mentioning a timeout', new Error('user said: timeout exceeded when trying to connect')],
];
for (const [name, error] of OTHER) {
  unreachable(`${name} passes unchanged`, () => {
    assert.is(unreachableReason(error), undefined);
    assert.is(unavailableError(error), undefined);
  });
}

unreachable(
  'every pool connection busy beyond the wait → 503 SERVICE_BUSY with Retry-After, not "unreachable"',
  () => {
    const error = new Error('timeout exceeded when trying to connect');
    assert.is(unreachableReason(error), 'no free database connection');
    const translated = unavailableError(new DriverException(error));
    assert.is(translated?.code, 'SERVICE_BUSY');
    assert.ok((translated?.extensions.retryAfter ?? 0) >= 1);
  },
);

unreachable(
  "a request's statement cut by statement_timeout → QUERY_TOO_EXPENSIVE; outside a request → 503",
  () => {
    const error = withCode('57014', 'canceling statement due to statement timeout');
    assert.is(unavailableError(error)?.code, 'SERVICE_UNAVAILABLE', 'start-up retries it');
    const inRequest = unavailableError(error, true);
    assert.is(inRequest?.code, 'QUERY_TOO_EXPENSIVE');
    assert.is(inRequest?.cause, error);
    const cancelled = withCode('57014', 'canceling statement due to user request');
    const byOperator = unavailableError(cancelled, true);
    assert.is(
      byOperator?.code,
      'SERVICE_UNAVAILABLE',
      "an operator's pg_cancel_backend is not the caller's cost",
    );
  },
);

unreachable('a cause chain that loops ends', () => {
  const first = new Error('first');
  const second = new Error('second', { cause: first });
  first.cause = second;
  assert.is(unreachableReason(first), undefined);
});

unreachable.run();
