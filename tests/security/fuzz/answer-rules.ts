import type { TestResponse } from '../../support/test-app.ts';
import type { CallerName } from './fuzz-fixture.ts';

/** docs/api.md §1: what every answer carries, errors included. */
const EVERY_ANSWER: ReadonlyArray<[string, RegExp]> = [
  ['cache-control', /^no-store$/],
  ['referrer-policy', /^no-referrer$/],
  ['x-content-type-options', /^nosniff$/],
  ['x-frame-options', /^DENY$/],
  ['x-request-id', /^[A-Za-z0-9._:-]{1,128}$/],
];

/**
 * The studio's page and files depend on no one: the page is revalidated on each load and the hashed files
 * kept for good (docs/api.md §16); its other answers (404, OPTIONS) are API answers like any other.
 */
const STUDIO_CACHE: [string, RegExp] = [
  'cache-control',
  /^(no-store|no-cache|public, max-age=31536000, immutable)$/,
];

export function headerBreach(response: TestResponse, route: string): string | undefined {
  const studio = /^\/studio(\/|$)/.test(route);
  for (const [name, expected] of studio ? [STUDIO_CACHE, ...EVERY_ANSWER.slice(1)] : EVERY_ANSWER) {
    const value = response.headers.get(name);
    if (value === null || !expected.test(value)) return `header ${name}: ${value ?? 'missing'}`;
  }
  return undefined;
}

/** Routes that never read a token (docs/api.md §3) or serve the public explorer and studio. */
const TOKEN_BLIND = /^\/(?:auth\/|server\/health$|server\/ping$|docs|studio)/;

/** Callers whose token names nobody who may act: forged, malformed, of a deleted or suspended user. */
const BAD_TOKENS = new Set<CallerName>([
  'garbage',
  'badSignature',
  'algNone',
  'deletedUser',
  'refreshAsAccess',
  'basicScheme',
  'emptyBearer',
  'suspendedStatic',
]);

/**
 * What a bad token may hear (docs/api.md §2, order of checks): the refusal of the token itself, or what
 * is decided before the token is read (an id that is not a uuid, the method, the size of the request, a
 * token given twice). Anything else means the request got past authentication.
 */
const BEFORE_OR_AT_THE_TOKEN = new Set([
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
  'USER_SUSPENDED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'URI_TOO_LONG',
  'REQUEST_TOO_LARGE',
  'INVALID_PAYLOAD',
]);

/**
 * Why an answer breaks a rule about who asked (docs/api.md §2 and §3), or undefined. The bad tokens are bad
 * in the fixture as made (`asMade`): a run that wrote may have woken the suspended user. Text that is not
 * well formed (`illFormedText`: a NUL, a lone surrogate) is refused before the token is read.
 */
export function callerBreach(
  caller: CallerName,
  method: string,
  route: string,
  response: TestResponse,
  { asMade, illFormedText }: { asMade: boolean; illFormedText: boolean },
): string | undefined {
  if (caller === 'anonymous' && response.status === 403) return 'an anonymous caller heard 403, not 401';
  if (!asMade || !BAD_TOKENS.has(caller) || TOKEN_BLIND.test(route) || method === 'OPTIONS') return undefined;
  if (response.status < 400) return `a ${caller} token was served (${response.status})`;
  const code = (response.body as { errors?: Array<{ extensions?: { code?: string } }> } | null)?.errors?.[0]
    ?.extensions?.code;
  const beforeTheToken =
    BEFORE_OR_AT_THE_TOKEN.has(code ?? '') || (illFormedText && code === 'INVALID_QUERY');
  if (method !== 'HEAD' && code !== undefined && !beforeTheToken) {
    return `a ${caller} token got past authentication (${code})`;
  }
  return undefined;
}
