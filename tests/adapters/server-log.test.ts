import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

type Line = { level: number; msg: string; line?: number; dropped?: number };

test('an output nobody reads holds a bounded text: later lines are dropped, and counted once it reads again', async () => {
  const count = 20_000;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'tests/support/log-into-a-stalled-output.ts', String(count)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.pause();
  let errors = '';
  await new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk) => {
      errors += String(chunk);
      if (errors.includes('logged\n')) resolve();
    });
  });
  let text = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    text += chunk;
  });
  child.stdout.resume();
  const [code] = await once(child, 'close');
  assert.is(code, 0, errors);

  const lines = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
  const logged = lines.filter((line) => line.msg === 'logged').map((line) => line.line!);
  const warnings = lines.filter((line) => line.msg.startsWith('log lines dropped'));
  assert.is(warnings.length, 1, 'one warning, after the output caught up');
  assert.is(warnings[0]!.level, 40);
  assert.ok(logged.length < count / 2, `most lines were dropped, not held: ${logged.length} written`);
  assert.is(logged.length + warnings[0]!.dropped!, count, 'every line written or counted');
  assert.ok(
    logged.every((line, index) => index === 0 || line > logged[index - 1]!),
    'the lines written are whole and in order',
  );
});

test.run();
