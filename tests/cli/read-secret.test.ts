import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { promptSecret, readSecretFromStdin } from '../../src/adapters/cli/read-secret.ts';

/** A terminal: what is typed arrives on `input`; `rawModes` records each switch of its mode. */
function terminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true, rawModes: [] as boolean[] });
  Object.assign(input, {
    setRawMode: (on: boolean) => {
      input.rawModes.push(on);
      return input;
    },
  });
  let shown = '';
  const output = {
    write: (text: string) => {
      shown += text;
      return true;
    },
  };
  return {
    input: input as unknown as NodeJS.ReadStream & { rawModes: boolean[] },
    output: output as unknown as NodeJS.WriteStream,
    shown: () => shown,
  };
}

test('a prompted secret is read in raw mode, with backspace, and never shown', async () => {
  const { input, output, shown } = terminal();
  const answer = promptSecret('Password: ', input, output);
  input.push('secrex');
  input.push('\u007ft pass');
  input.push('\r');
  assert.is(await answer, 'secret pass');
  assert.is(shown(), 'Password: \n');
  assert.equal(input.rawModes, [true, false]);
});

test('Ctrl-C gives up and leaves the terminal as it was', async () => {
  const { input, output } = terminal();
  const answer = promptSecret('Password: ', input, output);
  input.push('abc\u0003');
  await answer.then(
    () => assert.unreachable('Ctrl-C gave a password'),
    (error: Error) => assert.is(error.message, 'no password given'),
  );
  assert.equal(input.rawModes, [true, false]);
});

test('a secret on stdin loses the one line break at its end, and nothing else', async () => {
  const read = (text: string) => readSecretFromStdin(PassThrough.from([text]));
  assert.is(await read('a secret\n'), 'a secret');
  assert.is(await read('a secret\r\n'), 'a secret');
  assert.is(await read(' spaced \n\n'), ' spaced \n');
  assert.is(await read('no break'), 'no break');
});

test('a character whose bytes arrive in two chunks is read whole', async () => {
  const bytes = Buffer.from('pässword\n');
  const split = bytes.indexOf(0xa4); // the second byte of ä
  const chunks = [bytes.subarray(0, split), bytes.subarray(split)];
  assert.is(await readSecretFromStdin(PassThrough.from(chunks)), 'pässword');
});

test('a secret on stdin that is not UTF-8 is refused, not read as U+FFFD', async () => {
  const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('password\n')]);
  await readSecretFromStdin(PassThrough.from([bytes])).then(
    () => assert.unreachable('bytes that are not UTF-8 gave a password'),
    (error: Error) => assert.is(error.message, 'the password on stdin is not valid UTF-8'),
  );
});

test.run();
