import * as assert from 'uvu/assert';
import { DomainError, type ErrorCode } from '../../src/domain/errors.ts';

/** Awaits a promise that must fail with a DomainError of `code` (and so with the domain's own message). */
export async function expectDomainError(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, code);
    return;
  }
  assert.unreachable(`expected ${code}, but it resolved`);
}
