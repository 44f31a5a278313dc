import type { ByteRange } from '../../application/ports/file-storage.ts';

/**
 * One `bytes=` range spec: `first-last`, `first-` or `-suffix` (RFC 9110 §14.1.2). Positions have any
 * number of digits (the header's size bounds them): RFC 9110 §14.1.1 asks a server to take a last
 * position at or past the end as the end, however large it is written. The unit is matched without regard
 * to case, as RFC 9110 §14.1 says range units are (`BYTES=0-1` asks what `bytes=0-1` does).
 */
const RANGE_SPEC = /^bytes=(?:(\d+)-(\d*)|-(\d+))$/i;

/**
 * What a `Range` header asks of a file of `size` bytes: `whole` (no header, more than one range, or one
 * that is not valid syntax — RFC 9110 lets a server ignore those and answer 200), one satisfiable range
 * (206), or `unsatisfiable` (416): a valid range that starts at or past the end, or a suffix of 0 bytes.
 * Positions are compared as exact integers (a double would round those past 2^53), and only those below
 * `size` become numbers.
 */
export function byteRangeOf(header: string | undefined, size: number): ByteRange | 'whole' | 'unsatisfiable' {
  if (header === undefined) return 'whole';
  const spec = RANGE_SPEC.exec(header.trim());
  if (!spec) return 'whole';
  const [, first, last, suffix] = spec;
  const bytes = BigInt(size);
  if (suffix !== undefined) {
    const length = BigInt(suffix);
    if (length === 0n || size === 0) return 'unsatisfiable';
    return { start: length >= bytes ? 0 : size - Number(length), end: size - 1 };
  }
  const start = BigInt(first!);
  const end = last === '' ? null : BigInt(last!);
  if (end !== null && end < start) return 'whole';
  if (start >= bytes) return 'unsatisfiable';
  return { start: Number(start), end: end === null || end >= bytes ? size - 1 : Number(end) };
}
