import { AsyncLocalStorage } from 'node:async_hooks';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { startTestApp } from '../support/test-app.ts';
import { CARGO, prepareArena } from './attack-kit.ts';

/**
 * Node 20 turns on promise hooks for every promise of the process once any AsyncLocalStorage has been
 * entered, and leaves them on: a fifth of the instructions of a read, measured (docs/decisions/0059). No
 * request may enter one, neither datagate's code nor a library on the way (the TUS server's hooks find their
 * request without one).
 */
const test = suite('no request enters an AsyncLocalStorage');

test('reads, writes, lists of system tables and history, logins: none runs in an async context', async () => {
  const entered: string[] = [];
  const run = AsyncLocalStorage.prototype.run;
  const enterWith = AsyncLocalStorage.prototype.enterWith;
  AsyncLocalStorage.prototype.run = function (this: AsyncLocalStorage<unknown>, ...args: unknown[]) {
    entered.push(new Error('run').stack ?? 'run');
    return run.apply(this, args as never);
  } as typeof run;
  AsyncLocalStorage.prototype.enterWith = function (this: AsyncLocalStorage<unknown>, store: unknown) {
    entered.push(new Error('enterWith').stack ?? 'enterWith');
    enterWith.call(this, store);
  };
  const persistence = createInMemoryPersistence();
  const app = await startTestApp({ persistence });
  try {
    const arena = await prepareArena(app, persistence);
    const asked: Array<[string, string, string, unknown?]> = [
      ['GET', '/items/cargos?limit=2&meta=*', arena.operator],
      ['GET', `/items/cargos/${CARGO.fish}`, arena.operator],
      ['GET', '/items/cargos?aggregate[count]=*', arena.operator],
      ['POST', '/items/cargos', arena.admin, { description: 'Tea', code: 'T-9' }],
      ['PATCH', `/items/cargos/${CARGO.fish}`, arena.admin, { crates: 4 }],
      ['GET', '/activity?limit=3', arena.admin],
      ['GET', '/users?limit=3', arena.admin],
      ['GET', '/users/me', arena.operator],
    ];
    for (const [method, path, token, body] of asked) {
      const answer = await app.request(method, path, { token, ...(body ? { body } : {}) });
      assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
    }
    assert.equal(entered, [], 'an AsyncLocalStorage was entered while serving');
  } finally {
    AsyncLocalStorage.prototype.run = run;
    AsyncLocalStorage.prototype.enterWith = enterWith;
    await app.close();
  }
});

test.run();
