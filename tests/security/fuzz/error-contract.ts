import { readFileSync } from 'node:fs';
import type { TestResponse } from '../../support/test-app.ts';

/**
 * docs/api.md §2, read from the document itself so that the fuzzer holds the server to what its reference
 * says: each error code with the statuses it may come with (`| 400 | \`INVALID_PAYLOAD\` | …`).
 */
export function statusesByCode(): ReadonlyMap<string, ReadonlySet<number>> {
  const reference = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
  const section = reference.slice(reference.indexOf('\n## 2. Errors'), reference.indexOf('\n## 3.'));
  const statuses = new Map<string, Set<number>>();
  for (const [, status, code] of section.matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \|/gm)) {
    const known = statuses.get(code!) ?? new Set<number>();
    known.add(Number(status));
    statuses.set(code!, known);
  }
  if (statuses.size < 10) throw new Error('docs/api.md §2: the table of error codes was not found');
  return statuses;
}

/**
 * What a server's own failure text looks like (SQL, stack frames, driver names): an error body must show
 * none of it. Generated inputs are echoed in some messages, so only the shapes no input of the fuzzer
 * produces are listed.
 */
const INTERNALS =
  /syntax error at|invalid input syntax|relation "|violates (?:unique|not-null|check|foreign)|json_agg|\n\s+at |node_modules|\.[jt]s:\d+:\d+|kysely|mikro-?orm/i;

/**
 * Why an answer breaks the error contract (docs/api.md §2), or undefined when it keeps it: exactly one
 * error with a string message and code, a status the reference allows for that code, the headers the
 * reference promises (WWW-Authenticate on 401, Allow on 405, Retry-After on 429), and no internals.
 */
export function contractBreach(
  response: TestResponse,
  method: string,
  statuses: ReadonlyMap<string, ReadonlySet<number>>,
): string | undefined {
  if (response.status < 400) return undefined;
  // HEAD answers carry the status and headers of GET, never a body.
  if (method === 'HEAD') return undefined;
  const body = response.body as { errors?: unknown } | null;
  if (!body || !Array.isArray(body.errors) || body.errors.length !== 1) return 'not an error body';
  if (Object.keys(body).length !== 1) return 'members besides "errors"';
  const [error] = body.errors as Array<{ message?: unknown; extensions?: { code?: unknown } }>;
  if (typeof error?.message !== 'string') return 'no string "message"';
  const code = error.extensions?.code;
  if (typeof code !== 'string') return 'no string "extensions.code"';
  const allowed = statuses.get(code);
  if (!allowed) return `code ${code} is not in docs/api.md §2`;
  if (!allowed.has(response.status)) return `code ${code} with status ${response.status}`;
  if (response.status === 401 && !/^Bearer\b/.test(response.headers.get('www-authenticate') ?? '')) {
    return '401 without WWW-Authenticate: Bearer';
  }
  if (response.status === 405 && !response.headers.get('allow')) return '405 without Allow';
  if (response.status === 429 && !/^\d+$/.test(response.headers.get('retry-after') ?? '')) {
    return '429 without Retry-After';
  }
  const leak = INTERNALS.exec(response.text);
  if (leak) return `server internals in the answer (${leak[0]})`;
  return undefined;
}
