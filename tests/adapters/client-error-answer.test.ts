import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createGracefulServer } from '../../src/adapters/http/graceful-server.ts';

/** Sends raw bytes and returns the raw answer: these requests are ones no HTTP client would send. */
async function rawExchange(port: number, bytes: Buffer): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk) => {
    answer += chunk.toString('latin1');
  });
  socket.end(bytes);
  await new Promise((resolve) => socket.on('close', resolve));
  return answer;
}

async function withServer(body: (port: number) => Promise<void>): Promise<void> {
  const { server } = createGracefulServer((_request, response) => response.end('reached the app'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

function assertContractAnswer(answer: string, status: number, code: string): void {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  assert.match(head, new RegExp(`^HTTP/1.1 ${status} `));
  for (const header of [
    'X-Content-Type-Options: nosniff',
    'X-Frame-Options: DENY',
    'Cache-Control: no-store',
  ]) {
    assert.ok(head.includes(header), `missing ${header} in ${head}`);
  }
  assert.match(head, /X-Request-Id: [0-9a-f-]{36}/);
  assert.is(
    (JSON.parse(body) as { errors: [{ extensions: { code: string } }] }).errors[0].extensions.code,
    code,
  );
}

test('raw non-ASCII bytes in the request line → 400 in the contract shape, with the security headers', () =>
  withServer(async (port) => {
    const answer = await rawExchange(
      port,
      Buffer.from('GET /items/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'),
    );
    assertContractAnswer(answer, 400, 'INVALID_PAYLOAD');
  }));

test('headers over the size limit → 431 REQUEST_TOO_LARGE in the contract shape', () =>
  withServer(async (port) => {
    const request = `GET /items/cargos HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    assertContractAnswer(await rawExchange(port, Buffer.from(request)), 431, 'REQUEST_TOO_LARGE');
  }));

test('an HTTP/1.1 request without Host → 400 in the contract shape, never reaching the app', () =>
  withServer(async (port) => {
    const answer = await rawExchange(port, Buffer.from('GET /server/ping HTTP/1.1\r\n\r\n'));
    assertContractAnswer(answer, 400, 'INVALID_PAYLOAD');
    assert.not.ok(answer.includes('reached the app'), answer);
  }));

test('an HTTP/1.0 request needs no Host', () =>
  withServer(async (port) => {
    const answer = await rawExchange(port, Buffer.from('GET /server/ping HTTP/1.0\r\n\r\n'));
    assert.match(answer, /^HTTP\/1.1 200 /);
    assert.ok(answer.endsWith('reached the app'), answer);
  }));

test.run();
