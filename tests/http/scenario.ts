import * as assert from 'uvu/assert';
import type { TestApp, TestResponse } from '../support/test-app.ts';

/** One row of an endpoint's table (PocketBase style): what is sent, and what must come back. */
export type Scenario = {
  name: string;
  method: string;
  path: string;
  /** Key into the caller tokens the suite prepared (e.g. 'admin', 'member'); none = anonymous. */
  as?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  expectedStatus: number;
  /** `errors[0].extensions.code` of an error answer. */
  expectedCode?: string;
  expectedField?: string;
  /** `errors[0].message`, word for word: messages are the product's own, not a library's. */
  expectedMessage?: string;
  /** Header values the answer must carry (a RegExp is matched, a string compared exactly). */
  expectedHeaders?: Record<string, string | RegExp>;
  /** Further checks on the parsed body. */
  expectedBody?: (body: unknown) => void;
};

export type ErrorBody = {
  errors: Array<{ message: string; extensions: { code: string; field?: string } & Record<string, unknown> }>;
};

/** The first error of a contract error body, failing the test when the body is not one. */
export function firstError(response: TestResponse): ErrorBody['errors'][number] {
  const body = response.body as ErrorBody;
  assert.ok(Array.isArray(body?.errors) && body.errors.length === 1, `not an error body: ${response.text}`);
  return body.errors[0]!;
}

export function assertError(response: TestResponse, status: number, code: string, field?: string): void {
  assert.is(response.status, status, `status (body: ${response.text})`);
  const error = firstError(response);
  assert.is(error.extensions.code, code);
  assert.type(error.message, 'string');
  if (field !== undefined) assert.is(error.extensions.field, field);
  if (status === 401) assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer\b/);
}

export async function runScenario(
  app: TestApp,
  tokens: Record<string, string>,
  row: Scenario,
): Promise<void> {
  if (row.as !== undefined && tokens[row.as] === undefined)
    throw new Error(`no token prepared for "${row.as}"`);
  const response = await app.request(row.method, row.path, {
    body: row.body,
    rawBody: row.rawBody,
    headers: row.headers,
    token: row.as === undefined ? undefined : tokens[row.as],
  });
  if (row.expectedCode !== undefined) {
    assertError(response, row.expectedStatus, row.expectedCode, row.expectedField);
    if (row.expectedMessage !== undefined) assert.is(firstError(response).message, row.expectedMessage);
  } else {
    assert.is(response.status, row.expectedStatus, `status (body: ${response.text})`);
  }
  for (const [name, expected] of Object.entries(row.expectedHeaders ?? {})) {
    const actual = response.headers.get(name) ?? '';
    if (typeof expected === 'string') assert.is(actual, expected, `header ${name}`);
    else assert.match(actual, expected, `header ${name}`);
  }
  row.expectedBody?.(response.body);
}
