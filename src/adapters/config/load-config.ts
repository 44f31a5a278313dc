import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ZodError } from 'zod';
import { PACKAGE_ROOT } from '../../package-root.ts';
import { configIssueMessage } from './config-issue-message.ts';
import { configSchema, ENV_KEYS, type ParsedConfig } from './config-schema.ts';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type LoadConfigOptions = {
  env?: NodeJS.ProcessEnv;
  /** Where `default.yaml` and `<NODE_ENV>.yaml` live; the package's own `config/` by default. */
  configDir?: string;
};

const PACKAGE_CONFIG_DIR = join(PACKAGE_ROOT, 'config');

type Tree = { [key: string]: unknown };

/**
 * Layers, later wins: config/default.yaml, config/$NODE_ENV.yaml, the file named by DATAGATE_CONFIG,
 * then environment variables. The merged result is validated as a whole; the first problem found
 * is reported with its key, so a typo stops the process instead of silently falling back.
 */
export function loadConfig(options: LoadConfigOptions = {}): ParsedConfig {
  const env = options.env ?? process.env;
  const configDir = options.configDir ?? PACKAGE_CONFIG_DIR;
  const layers: Tree[] = [readYaml(resolve(configDir, 'default.yaml'), false)];
  if (env.NODE_ENV) layers.push(readYaml(resolve(configDir, `${env.NODE_ENV}.yaml`), false));
  if (env.DATAGATE_CONFIG) layers.push(readYaml(resolve(env.DATAGATE_CONFIG), true));
  layers.push(fromEnvironment(env));

  const merged = layers.reduce<Tree>((acc, layer) => deepMerge(acc, layer), {});
  const result = configSchema.safeParse(merged);
  if (!result.success) throw new ConfigError(describe(result.error, env));
  if (result.data.query.limitMax === 0)
    throw new ConfigError('invalid configuration: query.limitMax: must be -1 or at least 1');
  return result.data;
}

function readYaml(path: string, required: boolean): Tree {
  if (!existsSync(path)) {
    if (required) throw new ConfigError(`configuration file ${path} does not exist`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`configuration file ${path} is not valid YAML: ${(error as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isTree(parsed)) throw new ConfigError(`configuration file ${path} must hold a mapping of keys`);
  return parsed;
}

function fromEnvironment(env: NodeJS.ProcessEnv): Tree {
  const tree: Tree = {};
  for (const [name, path] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const keys = path.split('.');
    const leaf = keys.pop()!;
    let node = tree;
    for (const key of keys) {
      if (!isTree(node[key])) node[key] = {};
      node = node[key] as Tree;
    }
    node[leaf] = value;
  }
  return tree;
}

function deepMerge(base: Tree, override: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const existing = out[key];
    out[key] = isTree(existing) && isTree(value) ? deepMerge(existing, value) : value;
  }
  return out;
}

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(error: ZodError, env: NodeJS.ProcessEnv): string {
  const issue = error.issues[0]!;
  const path = issue.path.join('.');
  const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => (path ? `${path}.${k}` : k)) : [];
  if (keys.length > 0) return `invalid configuration: unknown key ${keys.join(', ')}`;
  // The environment wins over the files, so a variable set for this key is where the value came from.
  const variable = Object.entries(ENV_KEYS).find(([name, key]) => key === path && env[name])?.[0];
  const source = variable === undefined ? '' : ` (set by the environment variable ${variable})`;
  return `invalid configuration: ${path || '(root)'}: ${configIssueMessage(issue)}${source}`;
}
