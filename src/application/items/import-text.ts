import { DomainError, invalidPayload } from '../../domain/errors.ts';

/** How far an import has read: bytes of the file so far. */
export type ByteCount = { bytes: number };

/**
 * The file's bytes as UTF-8 text, as they arrive: counted into `count`, refused past `maxBytes` (400
 * INVALID_PAYLOAD, `reason: MAX_BYTES`) as soon as they are over it, and refused when they are not valid
 * UTF-8 rather than read with U+FFFD in place of what the client sent. A leading BOM is dropped.
 */
export async function* importText(
  bytes: AsyncIterable<Uint8Array>,
  maxBytes: number,
  count: ByteCount,
): AsyncIterable<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (chunk?: Uint8Array) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw invalidPayload('The file is not valid UTF-8.');
    }
  };
  for await (const chunk of bytes) {
    count.bytes += chunk.byteLength;
    if (count.bytes > maxBytes) {
      throw new DomainError('INVALID_PAYLOAD', `The file is larger than ${maxBytes} bytes.`, {
        reason: 'MAX_BYTES',
      });
    }
    const text = decode(chunk);
    if (text !== '') yield text;
  }
  const rest = decode();
  if (rest !== '') yield rest;
}
