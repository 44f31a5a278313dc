import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseFailureOf } from '../../../src/adapters/http/database-failure.ts';
import {
  systemTablesMissingError,
  unavailableError,
} from '../../../src/adapters/persistence/database-unreachable.ts';
import { invalidCredentials, serviceUnavailable } from '../../../src/domain/errors.ts';

const withCode = (code: string, message = 'driver words') => Object.assign(new Error(message), { code });

test('what the persistence boundary translated from a driver error counts, by kind', () => {
  assert.is(databaseFailureOf(unavailableError(withCode('ECONNREFUSED'))), 'unreachable');
  assert.is(
    databaseFailureOf(unavailableError(new Error('timeout exceeded when trying to connect'))),
    'pool_exhausted',
  );
  assert.is(databaseFailureOf(systemTablesMissingError(withCode('42P01'))), 'tables_missing');
});

test('an unexpected error with a SQLSTATE along its causes is "other"', () => {
  assert.is(databaseFailureOf(withCode('XX000')), 'other');
  assert.is(databaseFailureOf(new Error('wrapped', { cause: withCode('40P01') })), 'other');
});

test('refusals the server made itself are no database failure', () => {
  assert.is(databaseFailureOf(serviceUnavailable()), undefined, 'a 503 while starting');
  assert.is(databaseFailureOf(invalidCredentials()), undefined);
  assert.is(databaseFailureOf(withCode('EPIPE')), undefined, 'a socket code is no SQLSTATE');
  assert.is(databaseFailureOf(new Error('a bug')), undefined);
});

test.run();
