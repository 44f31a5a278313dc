import { z } from 'zod';
import { mustBe } from './payload-issue-message.ts';

/** Any 8-4-4-4-12 hex UUID; the version is not checked, since ids may come from other systems. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUID as PostgreSQL writes it (lower case), whatever case it came in: one id has one spelling in every
 * store and in every cache keyed by it, so invalidating it by the stored id reaches every entry.
 */
export function canonicalUuid(id: string): string {
  return id.toLowerCase();
}

/**
 * A UUID in a payload, taken in any case and handed on canonical; when it is not one, the refusal says it
 * must be `expected` ("a role id (UUID) or null").
 */
export function uuidText(expected: string) {
  const error = mustBe(expected);
  return z.string({ error }).regex(UUID_PATTERN, { error }).overwrite(canonicalUuid);
}
