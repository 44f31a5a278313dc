import { compareCodePoints } from './code-point-order.ts';

/**
 * The canonical text of a JSON value, as `jsonb` keeps it: object keys in jsonb's order (shorter keys
 * first, then by bytes) and duplicates already collapsed by the parser. Two values with the same
 * canonical text are equal jsonb values (numbers aside: jsonb keeps `1.50`, JSON.parse has made it 1.5).
 */
const MAX_DEPTH = 64;

/** Null when the value is not JSON (undefined, functions, non-finite numbers…), too deep, or holds a NUL character (jsonb refuses `\u0000`). */
export function canonicalJson(value: unknown): string | null {
  return write(value, 0);
}

function write(value: unknown, depth: number): string | null {
  if (depth > MAX_DEPTH) return null;
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : null;
  if (typeof value === 'string') return value.includes('\u0000') ? null : JSON.stringify(value);
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      const text = write(item, depth + 1);
      if (text === null) return null;
      items.push(text);
    }
    return `[${items.join(',')}]`;
  }
  if (typeof value === 'object') {
    const entries: string[] = [];
    for (const key of Object.keys(value).sort(jsonbKeyOrder)) {
      const text = write((value as Record<string, unknown>)[key], depth + 1);
      if (text === null || key.includes('\u0000')) return null;
      entries.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${entries.join(',')}}`;
  }
  return null;
}

const utf8 = new TextEncoder();

function jsonbKeyOrder(a: string, b: string): number {
  const lengthA = utf8.encode(a).length;
  const lengthB = utf8.encode(b).length;
  return lengthA !== lengthB ? lengthA - lengthB : compareCodePoints(a, b);
}
