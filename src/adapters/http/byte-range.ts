import type { ByteRange } from '../../application/ports/file-storage.ts';

/** One `bytes=` range spec: `first-last`, `first-` or `-suffix` (RFC 9110 §14.1.2). */
const RANGE_SPEC = /^bytes=(?:(\d{1,15})-(\d{0,15})|-(\d{1,15}))$/;

/**
 * What a `Range` header asks of a file of `size` bytes: `whole` (no header, more than one range, or one
 * that is not valid syntax — RFC 9110 lets a server ignore those and answer 200), one satisfiable range
 * (206), or `unsatisfiable` (416): a valid range that starts at or past the end, or a suffix of 0 bytes.
 */
export function byteRangeOf(header: string | undefined, size: number): ByteRange | 'whole' | 'unsatisfiable' {
  if (header === undefined) return 'whole';
  const spec = RANGE_SPEC.exec(header.trim());
  if (!spec) return 'whole';
  const [, first, last, suffix] = spec;
  if (suffix !== undefined) {
    const length = Number(suffix);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return 'whole';
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
