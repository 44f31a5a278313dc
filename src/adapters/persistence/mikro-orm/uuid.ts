const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Ids arrive from URLs. PostgreSQL rejects a malformed uuid with an error, where the port promises
 * "not found", so lookups by such an id are answered without asking the database.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
