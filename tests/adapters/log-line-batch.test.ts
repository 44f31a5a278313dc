import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineBatch, type LineOutput } from '../../src/adapters/log-line-batch.ts';

function recordingOutput(): LineOutput & { writes: string[]; flushes: number } {
  return {
    writes: [],
    flushes: 0,
    write(text) {
      this.writes.push(text);
    },
    flush(done) {
      this.flushes += 1;
      done?.();
    },
    flushSync() {
      this.flushes += 1;
    },
  };
}

test('writes the lines as one text once the batch is full, in their order', () => {
  const output = recordingOutput();
  const batch = new LineBatch(output, { batchChars: 10, flushMs: 60_000 });
  batch.write('abcd\n');
  batch.write('efg\n');
  assert.equal(output.writes, [], 'not full yet');
  batch.write('hi\n');
  assert.equal(output.writes, ['abcd\nefg\nhi\n']);
  batch.write('j\n');
  assert.equal(output.writes, ['abcd\nefg\nhi\n'], 'a new batch begins');
  batch.flushSync();
});

test('writes a batch that is not full once its first line has waited flushMs', async () => {
  const output = recordingOutput();
  const batch = new LineBatch(output, { batchChars: 4096, flushMs: 20 });
  batch.write('one\n');
  batch.write('two\n');
  // Timers fire in the order they fall due: this one after the batch's.
  await sleep(40);
  assert.equal(output.writes, ['one\ntwo\n']);
  batch.write('three\n');
  await sleep(40);
  assert.equal(output.writes, ['one\ntwo\n', 'three\n']);
});

test("flush and flushSync write what is pending and flush the output (pino's logger.flush)", async () => {
  const output = recordingOutput();
  const batch = new LineBatch(output, { batchChars: 4096, flushMs: 60_000 });
  batch.write('a\n');
  await new Promise<void>((resolve) => batch.flush(() => resolve()));
  assert.equal(output.writes, ['a\n']);
  batch.write('b\n');
  batch.flushSync();
  assert.equal(output.writes, ['a\n', 'b\n']);
  assert.is(output.flushes, 2);
  batch.flushSync();
  assert.equal(output.writes, ['a\n', 'b\n'], 'nothing pending, nothing written');
});

for (const how of ['end', 'exit', 'throw']) {
  test(`no line is lost when the process ends with a batch pending (${how})`, () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'tests/support/log-lines-then-exit.ts', '50', how],
      { encoding: 'utf8' },
    );
    const lines = child.stdout.split('\n').filter(Boolean);
    assert.equal(
      lines.map((line) => (JSON.parse(line) as { line: number }).line),
      Array.from({ length: 50 }, (_, index) => index + 1),
    );
    assert.is(child.status, how === 'end' ? 0 : how === 'exit' ? 3 : 1);
  });
}

test.run();
