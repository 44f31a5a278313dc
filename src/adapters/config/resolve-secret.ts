import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { unusableDataDirReason } from '../unusable-data-dir.ts';
import type { AppConfig, ParsedConfig } from './config-schema.ts';
import { ConfigError } from './load-config.ts';

const SECRET_FILE = 'secret';

/**
 * A fresh machine must start with no setup, yet tokens must survive restarts: without a configured
 * secret one is generated once and kept (mode 0600) in the data directory. Production must configure
 * its own, because a secret on the data disk travels with every backup of it.
 */
export function resolveSecret(config: ParsedConfig, env: NodeJS.ProcessEnv = process.env): AppConfig {
  if (config.auth.secret) return { ...config, auth: { ...config.auth, secret: config.auth.secret } };
  if (env.NODE_ENV === 'production') {
    throw new ConfigError(
      'invalid configuration: auth.secret: must be set (SECRET) when NODE_ENV=production',
    );
  }
  const dataDir = resolve(config.database.dataDir);
  const path = resolve(dataDir, SECRET_FILE);
  let secret: string;
  if (existsSync(path)) {
    secret = readFileSync(path, 'utf8').trim();
    if (secret.length < 32) throw new ConfigError(`the secret kept in ${path} is shorter than 32 characters`);
  } else {
    secret = randomBytes(48).toString('base64url');
    try {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      const reason = unusableDataDirReason(dataDir, error);
      throw reason === undefined
        ? error
        : new ConfigError(`invalid configuration: database.dataDir: ${reason}`);
    }
    writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  }
  return { ...config, auth: { ...config.auth, secret } };
}
