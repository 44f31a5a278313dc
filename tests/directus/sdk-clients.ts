import {
  type AuthenticationConfig,
  authentication,
  type ClientOptions,
  createDirectus,
  type DirectusError,
  isDirectusError,
  rest,
  staticToken,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import type { Schema } from './cargos-scenario.ts';

/**
 * The clients a test makes, built the way the SDK's documentation builds them. A session client starts a
 * refresh timer at each login (the token's lifetime minus 30 s), which would keep the test process alive
 * for minutes: `stopAll()` ends them whatever the tests did.
 */
export class SdkClients {
  private readonly sessions = new Set<{ stopRefreshing(): void }>();

  constructor(private readonly url: string) {}

  session(config: Partial<AuthenticationConfig> = {}, options: ClientOptions = {}) {
    const client = createDirectus<Schema>(this.url, options)
      .with(rest())
      .with(authentication('json', config));
    this.sessions.add(client);
    return client;
  }

  withStaticToken(token: string) {
    return createDirectus<Schema>(this.url).with(staticToken(token)).with(rest());
  }

  anonymous() {
    return createDirectus<Schema>(this.url).with(rest());
  }

  stopAll() {
    for (const client of this.sessions) client.stopRefreshing();
  }
}

/** The SDK's rejection of `pending`, checked to carry our error body (docs/api.md §2) and the answer's status. */
export async function sdkError(
  pending: Promise<unknown>,
  status: number,
  code: string,
): Promise<DirectusError> {
  const error = await pending.then(
    (value) => assert.unreachable(`expected ${status} ${code}, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
  if (!isDirectusError(error)) throw error;
  assert.is(error.response.status, status, JSON.stringify(error.errors));
  assert.is(error.errors[0]?.extensions.code, code, error.message);
  assert.is(error.message, error.errors[0]?.message);
  return error;
}
