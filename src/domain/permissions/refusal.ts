import { type Accountability, isAnonymous } from '../accountability.ts';
import { type DomainError, forbidden, unauthenticated } from '../errors.ts';

/**
 * The error for something the caller's permissions do not allow (docs/api.md §2): an anonymous caller is asked
 * to log in (401), anyone else (a role's preview too, as that role's users are) is refused (403). Naming
 * `field` tells the caller which part of their own request was refused; it reveals nothing they did not send.
 */
export function refusal(caller: Accountability, field?: string): DomainError {
  return isAnonymous(caller) ? unauthenticated() : forbidden(field);
}
