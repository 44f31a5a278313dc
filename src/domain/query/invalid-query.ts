import { DomainError } from '../errors.ts';

/** Why a query was refused, when the message alone is not enough for a client to react on. */
export type InvalidQueryReason =
  | 'INVALID_VALUE'
  | 'UNKNOWN_FIELD'
  | 'UNKNOWN_OPERATOR'
  | 'UNSUPPORTED_OPERATOR'
  | 'MAX_DEPTH'
  | 'MAX_CONDITIONS'
  | 'MAX_SEARCH_LENGTH'
  | 'LIMIT_ABOVE_MAX'
  | 'UNSUPPORTED_PARAMETER'
  | 'INVALID_CURSOR'
  | 'UNSUPPORTED_IMAGE'
  | 'IMAGE_TOO_LARGE';

export function invalidQuery(
  message: string,
  extensions: { field?: string; reason?: InvalidQueryReason } = {},
) {
  return new DomainError('INVALID_QUERY', message, extensions);
}

const SHOWN_CHARACTERS = 40;

/**
 * A short, safe rendering of client input for error messages: queries can be megabytes long, and a
 * message must never echo them back whole (nor break the log line they end up in).
 */
export function describeInput(raw: unknown): string {
  if (typeof raw === 'string') {
    const shown = raw.length > SHOWN_CHARACTERS ? `${raw.slice(0, SHOWN_CHARACTERS)}…` : raw;
    return JSON.stringify(shown);
  }
  if (typeof raw === 'number' || typeof raw === 'boolean' || raw === null) return String(raw);
  if (Array.isArray(raw)) return 'an array';
  return typeof raw === 'object' ? 'an object' : typeof raw;
}
