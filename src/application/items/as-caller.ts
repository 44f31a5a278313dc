import type { Accountability } from '../../domain/accountability.ts';
import { DomainError } from '../../domain/errors.ts';
import { refusal } from '../../domain/permissions/refusal.ts';

/**
 * Runs a permission check that refuses with FORBIDDEN, turning that into the caller's refusal: an
 * anonymous caller hears 401 (docs/api.md §2: "the public role may not do this"), others 403, field kept.
 */
export function asCaller(caller: Accountability, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'FORBIDDEN')
      throw refusal(caller, error.extensions.field);
    throw error;
  }
}
