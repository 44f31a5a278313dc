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
  ['pg-pool connect timeout', new Error('timeout exceeded when trying to connect'), 'connection timed out'],
  [
    'pg connect timeout',
    new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }),
    'connection timed out',
  ],
  ['server went away', new Error('Connection terminated unexpectedly'), 'connection lost'],
  ['silent network', new Error('Query read timeout'), 'no answer from the database'],
  ['SQLSTATE 08006', withCode('08006'), 'database connection failed (08006)'],
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

unreachable('a cause chain that loops ends', () => {
  const first = new Error('first');
  const second = new Error('second', { cause: first });
  first.cause = second;
  assert.is(unreachableReason(first), undefined);
});

unreachable.run();
