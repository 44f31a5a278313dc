import * as assert from 'uvu/assert';
import { DomainError, type ErrorCode } from '../../../src/domain/errors.ts';

/** Runs `action`, which must throw a DomainError of `code` naming `field` (or no field when undefined). */
export function expectError(action: () => unknown, code: ErrorCode, field?: string): DomainError {
  try {
    action();
  } catch (error) {
    assert.instance(error, DomainError);
    const domainError = error as DomainError;
    assert.is(domainError.code, code, domainError.message);
    assert.is(domainError.extensions.field, field, domainError.message);
    return domainError;
  }
  // unreachable() throws; the return type does not say so.
  assert.unreachable(`expected ${code}${field ? ` on ${field}` : ''}, but nothing was thrown`);
  throw new Error('unreachable');
}
