import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InspectedUpload } from '../../../src/application/files/inspected-upload.ts';
import type { MediaSniffer } from '../../../src/application/ports/media-sniffer.ts';
import { DomainError } from '../../../src/domain/errors.ts';

/** Knows one signature, "PNG!", in a window of 8 bytes; records what it was shown. */
class TinySniffer implements MediaSniffer {
  readonly windowBytes = 8;
  shown: Uint8Array[] = [];

  async sniff(head: Uint8Array): Promise<string | undefined> {
    this.shown.push(head);
    return Buffer.from(head.subarray(0, 4)).toString() === 'PNG!' ? 'image/png' : undefined;
  }

  async recognises(type: string): Promise<boolean> {
    return type === 'image/png';
  }
}

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

const settings = { maxUploadSize: 32, allowedTypes: [] as string[] };

async function drained(upload: InspectedUpload): Promise<{ passed: string; error?: DomainError }> {
  let passed = '';
  try {
    for await (const chunk of upload.bytes()) passed += Buffer.from(chunk).toString();
    return { passed };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { passed, error };
  }
}

test('bytes pass on unchanged, counted and hashed; the sniffed type wins over the declared one', async () => {
  const sniffer = new TinySniffer();
  const upload = new InspectedUpload(chunks('PN', 'G!abc', 'defghij'), 'text/plain', sniffer, settings);
  assert.equal(await drained(upload), { passed: 'PNG!abcdefghij' });
  assert.equal(upload.result(), {
    size: 14,
    checksum: createHash('sha256').update('PNG!abcdefghij').digest('hex'),
    type: 'image/png',
  });
  // Chunks gather until the window is full, and are sniffed once, whole.
  assert.equal(
    sniffer.shown.map((head) => Buffer.from(head).toString()),
    ['PNG!abcdefghij'],
  );
});

test('without a signature the declared type stays, if it is a media type the sniffer does not recognise; else application/octet-stream', async () => {
  const cases: Array<[string, string]> = [
    ['text/plain', 'text/plain'],
    ['  Text/CSV ', 'text/csv'],
    ['image/png', 'application/octet-stream'],
    ['text/html\r\nX-Evil: 1', 'application/octet-stream'],
    ['', 'application/octet-stream'],
  ];
  for (const [declared, type] of cases) {
    const upload = new InspectedUpload(chunks('hi'), declared, new TinySniffer(), settings);
    await drained(upload);
    assert.is(upload.result().type, type, declared);
  }
});

test('a type outside the allowed ones is refused before anything passes on', async () => {
  const upload = new InspectedUpload(chunks('hello ', 'world, more'), 'text/plain', new TinySniffer(), {
    ...settings,
    allowedTypes: ['image/*'],
  });
  const { passed, error } = await drained(upload);
  assert.is(passed, '');
  assert.is(error?.code, 'UNSUPPORTED_MEDIA_TYPE');
  assert.is(error?.extensions.type, 'text/plain');
});

test('a family in the allowed types admits its members', async () => {
  const upload = new InspectedUpload(chunks('PNG!....'), '', new TinySniffer(), {
    ...settings,
    allowedTypes: ['image/*'],
  });
  assert.equal(await drained(upload), { passed: 'PNG!....' });
});

test('one byte over the limit is CONTENT_TOO_LARGE, even inside the sniff window', async () => {
  for (const parts of [['x'.repeat(20), 'y'.repeat(13)], ['z'.repeat(33)]]) {
    const upload = new InspectedUpload(chunks(...parts), '', new TinySniffer(), settings);
    const { error } = await drained(upload);
    assert.is(error?.code, 'CONTENT_TOO_LARGE');
    assert.is(error?.extensions.maxBytes, 32);
  }
  const exact = new InspectedUpload(chunks('x'.repeat(32)), '', new TinySniffer(), settings);
  assert.is((await drained(exact)).passed.length, 32);
});

test.run();
