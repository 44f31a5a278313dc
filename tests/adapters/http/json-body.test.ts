import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import type { HttpContext } from '../../../src/adapters/http/http-state.ts';
import { jsonBodyReader } from '../../../src/adapters/http/json-body.ts';
import { DomainError } from '../../../src/domain/errors.ts';

const body = suite('Reading a JSON body');

/** A JSON request whose client has gone: its stream was destroyed before anyone read it. */
function abandonedRequest(): HttpContext {
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.headers = { 'content-type': 'application/json', 'content-length': '2' };
  req.destroy();
  return new Koa().createContext(req, new ServerResponse(req)) as unknown as HttpContext;
}

body('a body its client left before it was read is refused as a payload, not a 500', async () => {
  const error = await jsonBodyReader('1mb')(abandonedRequest(), z.object({})).then(
    () => assert.unreachable('read a body that was gone'),
    (error: unknown) => error,
  );
  assert.instance(error, DomainError);
  assert.is((error as DomainError).code, 'INVALID_PAYLOAD');
  assert.match((error as DomainError).message, 'the client closed the connection');
});

body.run();
