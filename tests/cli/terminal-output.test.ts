import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exportProgress } from '../../src/adapters/cli/export-progress.ts';
import { errorLine } from '../../src/adapters/cli/one-line-errors.ts';
import { importProgress, progressBar } from '../../src/adapters/cli/progress-bar.ts';
import { sweepProgress } from '../../src/adapters/cli/sweep-progress.ts';
import { paint } from '../../src/adapters/cli/terminal-colour.ts';

const ESC = '\x1b';

/** A stream that records what is written; `terminal` says whether it claims to be a colour TTY. */
function stream(terminal: { isTTY: boolean; colours?: boolean }) {
  const written: string[] = [];
  const fake = {
    isTTY: terminal.isTTY,
    hasColors: () => terminal.colours ?? true,
    write: (chunk: string) => written.push(chunk) > 0,
  };
  return { stream: fake as unknown as NodeJS.WriteStream, written };
}

test('colour only on a colour terminal, and never under NO_COLOR', () => {
  const tty = stream({ isTTY: true }).stream;
  assert.ok(paint(tty, 'red', 'x', {}).includes(ESC));
  assert.is(paint(tty, 'red', 'x', { NO_COLOR: '1' }), 'x');
  assert.is(paint(stream({ isTTY: true, colours: false }).stream, 'red', 'x', {}), 'x');
  assert.is(paint(stream({ isTTY: false }).stream, 'red', 'x', { FORCE_COLOR: '3' }), 'x');
});

test('an error is one line, whatever line breaks its reason carries', () => {
  const pipe = stream({ isTTY: false }).stream;
  assert.is(
    errorLine('relation "x" does not exist\n  HINT: create it\n', pipe),
    'datagate: relation "x" does not exist HINT: create it',
  );
});

test('the progress bar draws on a terminal only; a pipe gets the final line alone', () => {
  const pipe = stream({ isTTY: false });
  const piped = progressBar('cargos', pipe.stream);
  piped.update(500, 1000);
  piped.update(1000, 1000);
  piped.finish('1,000 rows added');
  assert.is(pipe.written.length, 1);
  assert.match(pipe.written[0]!, /^cargos 1,000 rows added in \d+\.\d s\n$/);

  const tty = stream({ isTTY: true });
  const drawn = progressBar('cargos', tty.stream);
  drawn.update(500, 1000);
  drawn.update(501, 1000);
  drawn.update(1000, 1000);
  drawn.finish('1,000 rows added');
  assert.is(tty.written.length, 3, 'one redraw per whole percent, then the summary');
  assert.match(tty.written[0]!, /^\rcargos █{15}░{15} {2}50% 500\/1,000$/);
  assert.ok(tty.written[2]!.startsWith('\r\x1b[2Kcargos 1,000 rows added in '));
});

test("a sweep's progress: keys counted, then a bar over the rows, on a terminal only", () => {
  const pipe = stream({ isTTY: false });
  const piped = sweepProgress(pipe.stream);
  piped.update({ stage: 'files', done: 500 });
  piped.update({ stage: 'rows', done: 500, total: 1000 });
  piped.clear();
  assert.equal(pipe.written, []);

  const tty = stream({ isTTY: true });
  const drawn = sweepProgress(tty.stream);
  drawn.update({ stage: 'files', done: 1500 });
  drawn.update({ stage: 'rows', done: 500, total: 1000 });
  drawn.clear();
  drawn.clear();
  assert.equal(tty.written, [
    '\r\x1b[2Kfiles/ 1,500 keys checked',
    '\rrows ███████████████░░░░░░░░░░░░░░░  50% 500/1,000',
    '\r\x1b[2K',
  ]);
});

test('an export or import counts one row as "1 row", any other number in the plural', () => {
  const table: Array<[number, RegExp]> = [
    [0, /^cargos: 0 rows, 0 rows\/s, done in \d+\.\d s\n$/],
    [1, /^cargos: 1 row, [\d,]+ rows\/s, done in \d+\.\d s\n$/],
    [2, /^cargos: 2 rows, /],
    [1000, /^cargos: 1,000 rows, /],
  ];
  for (const [rows, summary] of table) {
    const pipe = stream({ isTTY: false });
    exportProgress('cargos', pipe.stream).finish(rows);
    assert.match(pipe.written[0]!, summary, `${rows}: ${pipe.written[0]}`);
  }
  const pipe = stream({ isTTY: false });
  importProgress('cargos', 100, pipe.stream, 0).update({ rows: 1, bytes: 50 });
  assert.match(pipe.written[0]!, /^cargos 1 row, [\d,]+ rows\/s, 50% read, /);
});

test.run();
