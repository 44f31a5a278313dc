import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { configSchema } from '../../src/adapters/config/config-schema.ts';
import { ConfigError, loadConfig } from '../../src/adapters/config/load-config.ts';
import { resolveSecret } from '../../src/adapters/config/resolve-secret.ts';

function withDir(run: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'datagate-config-'));
  try {
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function refuses(env: NodeJS.ProcessEnv, key: string, configDir?: string) {
  try {
    loadConfig({ env, configDir });
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, key);
    return;
  }
  assert.unreachable(`accepted a bad ${key}`);
}

test('defaults follow the contract (docs/api.md §8)', () => {
  const config = loadConfig({ env: {} });
  assert.is(config.http.host, '127.0.0.1');
  assert.is(config.http.port, 8055);
  assert.is(config.auth.accessTokenTTL, 15 * 60_000);
  assert.is(config.auth.refreshTokenTTL, 7 * 24 * 3_600_000);
  assert.is(config.auth.refreshReuseGrace, 10_000);
  assert.is(config.auth.tokenFormat, 'jwt');
  assert.is(config.auth.allowQueryToken, true);
  assert.is(config.database.url, undefined);
  assert.is(config.query.limitMax, 1000);
});

test('config/default.yaml states only the schema defaults, which the README reference shows', () => {
  const file = parseYaml(readFileSync(new URL('../../config/default.yaml', import.meta.url), 'utf8'));
  assert.equal(configSchema.parse(file), configSchema.parse({}));
});

test('token lifetimes come from config files, and environment variables win over files', () => {
  withDir((dir) => {
    writeFileSync(join(dir, 'default.yaml'), 'auth:\n  accessTokenTTL: 5m\n  refreshTokenTTL: 2d\n');
    writeFileSync(join(dir, 'staging.yaml'), 'auth:\n  accessTokenTTL: 30m\n');
    assert.is(loadConfig({ env: {}, configDir: dir }).auth.accessTokenTTL, 5 * 60_000);
    const staging = loadConfig({ env: { NODE_ENV: 'staging' }, configDir: dir });
    assert.is(staging.auth.accessTokenTTL, 30 * 60_000);
    assert.is(staging.auth.refreshTokenTTL, 2 * 24 * 3_600_000);
    const overridden = loadConfig({
      env: { NODE_ENV: 'staging', ACCESS_TOKEN_TTL: '900000' },
      configDir: dir,
    });
    assert.is(overridden.auth.accessTokenTTL, 900_000);
  });
});

test('DATAGATE_CONFIG names one more file, above the per-environment one', () => {
  withDir((dir) => {
    const extra = join(dir, 'extra.yaml');
    writeFileSync(extra, 'http:\n  port: 9000\nauth:\n  checkSessionOnEachRequest: true\n');
    const config = loadConfig({ env: { DATAGATE_CONFIG: extra }, configDir: dir });
    assert.is(config.http.port, 9000);
    assert.is(config.auth.checkSessionOnEachRequest, true);
    refuses({ DATAGATE_CONFIG: join(dir, 'missing.yaml') }, 'missing.yaml', dir);
  });
});

test('http.workers: one process by default, a number of workers, or one per core with auto', () => {
  assert.is(loadConfig({ env: {} }).http.workers, 1);
  assert.is(loadConfig({ env: { HTTP_WORKERS: '2' } }).http.workers, 2);
  assert.is(loadConfig({ env: { HTTP_WORKERS: 'auto' } }).http.workers, availableParallelism());
  refuses({ HTTP_WORKERS: '0' }, 'http.workers');
  refuses({ HTTP_WORKERS: 'many' }, 'http.workers: must be a whole number from 1 to 256, or auto');
});

test('auth.throttle.store is unset by default, so the database decides it (see createLoginThrottle)', () => {
  assert.is(loadConfig({ env: {} }).auth.throttle.store, undefined);
  assert.is(loadConfig({ env: { LOGIN_THROTTLE_STORE: 'memory' } }).auth.throttle.store, 'memory');
});

test('environment flags read "false" as false', () => {
  assert.is(loadConfig({ env: { ALLOW_QUERY_TOKEN: 'false' } }).auth.allowQueryToken, false);
  assert.is(loadConfig({ env: { CHECK_SESSION_ON_EACH_REQUEST: '1' } }).auth.checkSessionOnEachRequest, true);
});

test('a bad value stops start-up with a message naming the key', () => {
  refuses({ ACCESS_TOKEN_TTL: 'soon' }, 'auth.accessTokenTTL');
  refuses({ PORT: '70000' }, 'http.port');
  refuses({ PORT: 'eighty' }, 'http.port');
  refuses({ TOKEN_FORMAT: 'saml' }, 'auth.tokenFormat');
  refuses({ DATABASE_URL: 'mysql://localhost/x' }, 'database.url');
  refuses({ SECRET: 'short' }, 'auth.secret');
  refuses({ ALLOW_QUERY_TOKEN: 'maybe' }, 'auth.allowQueryToken');
  refuses({ QUERY_LIMIT_MAX: '0' }, 'query.limitMax');
});

test('the message says what the value must be in its own words, and which variable set it', () => {
  for (const [env, message] of [
    [{ PORT: 'eighty' }, 'http.port: must be a number (set by the environment variable PORT)'],
    [{ PORT: '70000' }, 'http.port: must be at most 65535 (set by the environment variable PORT)'],
    [{ API_PROFILE: 'Directus' }, 'http.profile: must be one of "plain" or "directus" (set by'],
    [{ ALLOW_QUERY_TOKEN: 'yes' }, 'auth.allowQueryToken: must be true, false, 1 or 0 (set by'],
    [{ DATABASE_URL: 'mysql://localhost/x' }, 'database.url: must be a PostgreSQL URL such as'],
    [{ LOG_LEVEL: 'verbose' }, 'log.level: must be one of "fatal", "error"'],
    [
      { ACCESS_TOKEN_TTL: 'mysql-soon' },
      'auth.accessTokenTTL: is not a positive duration such as 900s, 15m or 7d (set by',
    ],
    [
      { REALTIME_WS_HEARTBEAT: 'mysql-often' },
      'realtime.wsHeartbeat: is not a duration such as 30s, nor 0 (off)',
    ],
  ] as const) {
    let refusal = '';
    try {
      loadConfig({ env });
    } catch (error) {
      assert.instance(error, ConfigError);
      refusal = (error as Error).message;
    }
    assert.ok(refusal.includes(message), `${JSON.stringify(env)}: "${refusal}" does not say "${message}"`);
    assert.not.match(refusal, /Invalid|expected|received|NaN/);
    assert.not.match(refusal, /mysql/, 'a value is quoted back');
  }
});

test('an unknown key in a file is refused, by its full name', () => {
  withDir((dir) => {
    writeFileSync(join(dir, 'default.yaml'), 'auth:\n  acessTokenTTL: 5m\n');
    refuses({}, 'auth.acessTokenTTL', dir);
    writeFileSync(join(dir, 'default.yaml'), 'auth: [1, 2\n');
    refuses({}, 'not valid YAML', dir);
  });
});

test('without a configured secret one is generated once and kept in the data dir', () => {
  withDir((dir) => {
    const config = loadConfig({ env: { DATA_DIR: dir } });
    const first = resolveSecret(config, {});
    const second = resolveSecret(config, {});
    assert.ok(first.auth.secret.length >= 32);
    assert.is(second.auth.secret, first.auth.secret);
    assert.is(readFileSync(join(dir, 'secret'), 'utf8').trim(), first.auth.secret);
    assert.is(statSync(join(dir, 'secret')).mode & 0o777, 0o600);
  });
});

test('a data directory that cannot be made says why, naming the key, not mkdir', () => {
  withDir((dir) => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    for (const dataDir of [file, join(file, 'below')]) {
      assert.throws(
        () => resolveSecret(loadConfig({ env: { DATA_DIR: dataDir } }), {}),
        (error: Error) =>
          error instanceof ConfigError &&
          error.message.startsWith(`invalid configuration: database.dataDir: ${dataDir} cannot be used`) &&
          /a file (of that name )?is in the way/.test(error.message),
      );
    }
  });
});

test('production refuses to run on a generated secret', () => {
  withDir((dir) => {
    const config = loadConfig({ env: { DATA_DIR: dir } });
    assert.throws(() => resolveSecret(config, { NODE_ENV: 'production' }), /auth\.secret/);
    const secret = 's'.repeat(40);
    assert.is(
      resolveSecret(loadConfig({ env: { SECRET: secret } }), { NODE_ENV: 'production' }).auth.secret,
      secret,
    );
  });
});

test.run();
