import { DomainError, serviceUnavailable } from '../../domain/errors.ts';

/** Socket-level failures: the server is not there, went away, or the network between is broken. */
const NETWORK_CODES: ReadonlyMap<string, string> = new Map([
  ['ECONNREFUSED', 'connection refused'],
  ['ECONNRESET', 'connection reset'],
  ['ECONNABORTED', 'connection aborted'],
  ['EPIPE', 'connection closed'],
  ['ETIMEDOUT', 'connection timed out'],
  ['EHOSTUNREACH', 'host unreachable'],
  ['EHOSTDOWN', 'host down'],
  ['ENETUNREACH', 'network unreachable'],
  ['ENETDOWN', 'network down'],
  ['ENOTFOUND', 'host name not found'],
  ['EAI_AGAIN', 'host name lookup failed'],
]);

/**
 * SQLSTATEs meaning "not now" rather than "not this": the connection failed (class 08), the server is
 * shutting down, crashed or still starting (57P01–57P03), has no connection slot left (53300), or the
 * statement ran past `statement_timeout` (57014, the configured query timeout).
 */
const SERVER_STATES: ReadonlyMap<string, string> = new Map([
  ['57P01', 'database server shutting down'],
  ['57P02', 'database server crashed'],
  ['57P03', 'database server starting up'],
  ['53300', 'too many database connections'],
  ['57014', 'query timed out'],
]);

/**
 * pg and pg-pool report these without a code. Matched at the start of the message, which pg builds
 * itself (no server text in front of them).
 */
const DRIVER_MESSAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^timeout exceeded when trying to connect/, 'connection timed out'],
  [/^Connection terminated due to connection timeout/, 'connection timed out'],
  [/^Connection terminated/, 'connection lost'],
  [/^Query read timeout/, 'no answer from the database'],
  [/^Client has encountered a connection error and is not queryable/, 'connection lost'],
];

/**
 * Why the database could not be used, in words safe to show anyone (no host, port, user or driver
 * text), or undefined when `error` is not a reachability failure. Looks through `cause` chains:
 * MikroORM and pg-pool wrap the socket error they got.
 */
export function unreachableReason(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const reason = reasonOf(current);
    if (reason) return reason;
  }
  return undefined;
}

/**
 * The persistence boundary's translation: SERVICE_UNAVAILABLE (503) when `error` says the database cannot
 * be reached, the driver's error kept as `cause` for logs only; undefined for anything else, a domain
 * error already translated included. Use as `throw unavailableError(error) ?? error`.
 */
export function unavailableError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError || unreachableReason(error) === undefined) return undefined;
  const unavailable = serviceUnavailable();
  unavailable.cause = error;
  return unavailable;
}

function reasonOf(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    const known = NETWORK_CODES.get(code) ?? SERVER_STATES.get(code);
    if (known) return `${known} (${code})`;
    if (/^08[0-9A-Z]{3}$/.test(code)) return `database connection failed (${code})`;
  }
  return DRIVER_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1];
}
