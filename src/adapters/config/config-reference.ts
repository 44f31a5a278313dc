import ms from 'ms';
import { z } from 'zod';
import { configSchema, ENV_KEYS } from './config-schema.ts';

/**
 * The README's configuration reference, generated from the schema so it cannot drift from what the server
 * accepts: one row per key with its environment variable, type, default and description.
 */

export const REFERENCE_START = '<!-- config-reference:start -->';
export const REFERENCE_END = '<!-- config-reference:end -->';

type Row = { key: string; env: string; type: string; defaultValue: string; description: string };

export function configReference(): string {
  const rows = [...keysOf(configSchema, '', '')];
  const documented = new Set(rows.map((row) => row.key));
  const stray = Object.values(ENV_KEYS).filter((key) => !documented.has(key));
  if (stray.length > 0) throw new Error(`ENV_KEYS names keys the schema does not have: ${stray.join(', ')}`);
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [
    line(['key', 'env', 'type', 'default', 'description']),
    '|---|---|---|---|---|',
    ...rows.map((row) => line([row.key, row.env, row.type, row.defaultValue, row.description])),
  ].join('\n');
}

/** `readme` with the text between the markers replaced by the current reference. */
export function withConfigReference(readme: string): string {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start)
    throw new Error(`the README has no ${REFERENCE_START} … ${REFERENCE_END} section`);
  return `${readme.slice(0, start + REFERENCE_START.length)}\n${configReference()}\n${readme.slice(end)}`;
}

const ENV_OF_KEY = new Map(Object.entries(ENV_KEYS).map(([env, key]) => [key, env]));

/** Unwraps defaults, prefaults and optionals; the outermost description wins, an object's prefixes its keys'. */
function* keysOf(schema: z.ZodType, key: string, context: string): Generator<Row> {
  let inner = schema;
  let description = schema.description;
  let defaultValue: unknown;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodPrefault || inner instanceof z.ZodOptional) {
    if (inner instanceof z.ZodDefault) defaultValue = inner.def.defaultValue;
    inner = inner.unwrap() as z.ZodType;
    description ??= inner.description;
  }
  const described = [context, description].filter(Boolean).join(': ');
  if (inner instanceof z.ZodObject) {
    for (const [name, child] of Object.entries(inner.shape as Record<string, z.ZodType>))
      yield* keysOf(child, key ? `${key}.${name}` : name, described);
    return;
  }
  if (!description) throw new Error(`configuration key ${key} has no description`);
  const type = typeOf(inner, key);
  yield {
    key,
    env: ENV_OF_KEY.get(key) ?? '–',
    type,
    defaultValue: formatDefault(defaultValue, type),
    description: described,
  };
}

function typeOf(schema: z.ZodType, key: string): string {
  const tagged = z.globalRegistry.get(schema)?.type;
  if (typeof tagged === 'string') return tagged;
  if (schema instanceof z.ZodEnum) return schema.options.map((value) => `\`${String(value)}\``).join(', ');
  if (schema instanceof z.ZodNumber) return schema.isInt ? 'integer' : 'number';
  if (schema instanceof z.ZodURL) return 'URL';
  if (schema instanceof z.ZodString) return 'text';
  throw new Error(`configuration key ${key}: give its schema a type with .meta({ type })`);
}

function formatDefault(value: unknown, type: string): string {
  if (value === undefined) return 'unset';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : `\`${value.join(',')}\``;
  if (type === 'duration' && typeof value === 'number') return `\`${ms(value)}\``;
  return `\`${String(value)}\``;
}

/** Table cells: a `|` would end the cell, even inside backticks. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}
