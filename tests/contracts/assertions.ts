import * as assert from 'uvu/assert';
import { DomainError } from '../../src/domain/errors.ts';

export async function rejectsAsNotUnique(attempt: Promise<unknown>, field: string) {
  const error = await attempt.then(
    () => assert.unreachable('expected RECORD_NOT_UNIQUE'),
    (reason: unknown) => reason,
  );
  assert.instance(error, DomainError);
  assert.is((error as DomainError).code, 'RECORD_NOT_UNIQUE');
  assert.equal((error as DomainError).extensions, { field });
}
