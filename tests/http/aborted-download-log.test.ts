import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpApp } from '../../src/adapters/http/create-http-app.ts';
import { TYPES } from '../../src/container.ts';
import { withTestApp } from '../support/test-app.ts';

const test = suite('a client that goes away mid-answer');

/** Waits, without a deadline of its own (the run's timeout is the bound), until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

test('an asset download cut short logs no error-level line: a client going away is no server error', () =>
  withTestApp(
    async (app) => {
      const admin = (await app.login(await app.seedAdmin())).access_token;
      // Far more than the socket buffers hold, so the answer is still streaming when the client leaves.
      const body = new FormData();
      body.append(
        'file',
        new Blob([Buffer.alloc(16 * 1024 * 1024, 7)], { type: 'application/octet-stream' }),
        'big.bin',
      );
      const uploaded = await fetch(`${app.url}/files`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}` },
        body,
      });
      assert.is(uploaded.status, 200);
      const { id } = (await uploaded.json()) as { id: string };

      const { hostname, port } = new URL(app.url);
      const socket = connect(Number(port), hostname);
      socket.write(
        `GET /assets/${id} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${admin}\r\n\r\n`,
      );
      await new Promise((resolve) => socket.once('data', resolve));
      socket.resetAndDestroy();
      await until(() => app.logs.some((line) => line.msg === 'request' && line.path === `/assets/${id}`));
      // Whatever the server reports about the cut comes right after it; give it that moment.
      await new Promise((resolve) => setTimeout(resolve, 200));

      const errors = app.logs.filter((line) => (line.level as number) >= 50);
      assert.equal(errors, [], 'no error-level line');
    },
    { captureLogs: true },
  ));

test('a failure after the answer began that is not the client leaving is still logged as an error', () =>
  withTestApp(
    async (app) => {
      const failure = Object.assign(new Error('the store failed mid-stream'), { code: 'EIO' });
      app.container.get<HttpApp>(TYPES.HttpApp).emit('error', failure);
      const logged = app.logs.find((line) => line.msg === 'unhandled http error');
      assert.is(logged?.level, 50);
    },
    { captureLogs: true },
  ));

test.run();
