import { performance } from 'node:perf_hooks';
import * as assert from 'uvu/assert';

export type Answer = { status: number; headers: Headers; body: unknown; text: string; ms: number };

/** One request to a server under test, timed; the body is sent as JSON. */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const started = performance.now();
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : null,
    text,
    ms: performance.now() - started,
  };
}

/**
 * Exactly the contract's 503 body (docs/api.md §2): code, message and when to retry, nothing from the
 * driver; `Retry-After` says the same.
 */
export function assertUnavailable(answer: Answer): void {
  assert.is(answer.status, 503, answer.text);
  assert.equal(answer.body, {
    errors: [
      {
        message: 'The service is unavailable. Try again shortly.',
        extensions: { code: 'SERVICE_UNAVAILABLE', retryAfter: 5 },
      },
    ],
  });
  assert.is(answer.headers.get('Retry-After'), '5');
}

type HealthBody = { status: string; checks: { database: { status: string; detail?: string } } };

export function healthOf(answer: Answer): HealthBody {
  return answer.body as HealthBody;
}

/** Polls until `check` passes or `timeoutMs` is over; returns how long it took. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return performance.now() - started;
}

/** The smallest collection the outage tests create and write to: an integer key and one label. */
export const PARCELS_COLLECTION = {
  collection: 'parcels',
  fields: [
    { field: 'id', type: 'integer', schema: { is_primary_key: true } },
    { field: 'label', type: 'string' },
  ],
};

/** Logs `admin` in on the server at `base` and creates the parcels collection; the admin's access token. */
export async function adminWithParcels(
  base: string,
  admin: { email: string; password: string },
): Promise<string> {
  const login = await call(base, 'POST', '/auth/login', { body: admin });
  assert.is(login.status, 200, login.text);
  const token = (login.body as { access_token: string }).access_token;
  const created = await call(base, 'POST', '/collections', { token, body: PARCELS_COLLECTION });
  assert.is(created.status, 200, created.text);
  return token;
}
