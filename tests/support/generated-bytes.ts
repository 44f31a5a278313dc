import { createHash } from 'node:crypto';

/**
 * `size` bytes of a fixed pattern (`seed` picks one of several), handed out `chunkSize` at a time and
 * made as they are consumed, so that hundreds of MB cost one chunk of memory. The same size and seed give
 * the same bytes whatever the chunk size.
 */
export async function* generatedBytes(size: number, chunkSize: number, seed = 0): AsyncIterable<Uint8Array> {
  for (let start = 0; start < size; start += chunkSize) {
    const chunk = Buffer.allocUnsafe(Math.min(chunkSize, size - start));
    for (let index = 0; index < chunk.length; index++) chunk[index] = patternByte(start + index, seed);
    yield chunk;
  }
}

/** Not a period of 256, so that a slice misplaced by a multiple of 256 bytes still reads differently. */
function patternByte(position: number, seed: number): number {
  return (position * 31 + Math.floor(position / 251) + seed * 7) & 0xff;
}

export async function readAll(bytes: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bytes) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export async function sha256Of(bytes: AsyncIterable<Uint8Array>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of bytes) hash.update(chunk);
  return hash.digest('hex');
}
