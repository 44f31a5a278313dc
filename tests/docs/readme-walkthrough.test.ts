import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { datagate, type Served, serve } from '../support/datagate-process.ts';

/**
 * README "Walk-through: the seed scenario", run as written. Its first ```sh block is the set-up for a person
 * (`make run` holds the terminal); this test does the same with the development CLI on a temporary
 * embedded database, taking the row count and the credentials from that block. The later blocks run in
 * order, each command's output matching the `# →` lines below it, where `…` stands for any text within
 * one value (no quote, no line break). A block that runs the CLI (`bin/datagate.mjs`) is the reader's
 * first shell after stopping the server, so the server is stopped first and the block gets `DATA_DIR`; a
 * block of HTTP calls is the other shell, run with `DATAGATE` pointing at the server (started again if the
 * CLI stopped it). Consecutive blocks of one kind share one bash session, as a reader's shell would.
 */

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const HEADING = '## Walk-through: the seed scenario';
const REPO = new URL('../..', import.meta.url).pathname;

type Step = { commands: string; expected: string };

function walkthroughBlocks(): string[] {
  const start = README.indexOf(`\n${HEADING}\n`);
  assert.ok(start >= 0, `README.md has no "${HEADING}" section`);
  const next = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/\n```sh\n([\s\S]*?)\n```/g)].map((match) => match[1]!);
}

/** Commands up to a run of `# →` lines are one step; commands after the last such run must print nothing. */
function stepsOf(blocks: string[]): Step[] {
  const steps: Step[] = [];
  let commands: string[] = [];
  let expected: string[] = [];
  const flush = () => {
    steps.push({ commands: commands.join('\n'), expected: expected.join('\n') });
    commands = [];
    expected = [];
  };
  for (const line of blocks.join('\n').split('\n')) {
    if (line.startsWith('# → ')) expected.push(line.slice('# → '.length));
    else {
      if (expected.length > 0) flush();
      commands.push(line);
    }
  }
  flush();
  return steps;
}

function matches(output: string, expected: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^"\\n]*');
  return new RegExp(`^${pattern}$`).test(output);
}

/**
 * Output as a reader sees it: header lines without their CR, PostgreSQL's array line breaks joined — a comma
 * ending a line followed by an indented one; a CSV row ending in an empty value (`id,` for a null) is a
 * line of its own.
 */
const normalised = (output: string) =>
  output
    .replaceAll('\r', '')
    .replace(/,[ \t]*\n[ \t]+/g, ', ')
    .trimEnd();

/** Blocks of one kind in a row, in order: HTTP calls against the server, or CLI commands without one. */
type Shell = { cli: boolean; steps: Step[] };

function shellsOf(blocks: string[]): Shell[] {
  const shells: Shell[] = [];
  for (const block of blocks) {
    const cli = block.includes('bin/datagate.mjs');
    const last = shells.at(-1);
    if (last?.cli === cli) last.steps.push(...stepsOf([block]));
    else shells.push({ cli, steps: stepsOf([block]) });
  }
  return shells;
}

/** Step `first + i` writes its stdout to `outputs/<first + i>`. */
function runSteps(
  steps: Step[],
  first: number,
  env: Record<string, string>,
  outputs: string,
): Promise<{ code: number | null; stderr: string }> {
  // Each step's stdout goes to a file of its own; `set -e` stops at the first command that fails.
  const script = [
    'set -eo pipefail',
    ...steps.flatMap((step, index) => [`exec >"$1/${first + index}"`, step.commands]),
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script, 'walkthrough', outputs], {
      cwd: REPO,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
      // Generous: every CLI command opens and migrates the embedded database on a machine shared with others.
      timeout: 300_000,
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

type Context = { dir: string; env: Record<string, string>; server: Served | undefined };

const walkthrough = suite<Context>('README walk-through');

walkthrough.before(async (context) => {
  const setUp = walkthroughBlocks()[0] ?? '';
  const rows = /node bin\/datagate\.mjs sample cargos --rows (\d+)/.exec(setUp)?.[1];
  const admin = /ADMIN_EMAIL=(\S+) ADMIN_PASSWORD='([^']+)' make run/.exec(setUp);
  // A reader's ./data may hold the quick start's admin: the walk-through must start from a directory of its own.
  const emptyDataDir = /export DATA_DIR=\$\(mktemp -d\)/.test(setUp);
  if (!rows || !admin || !emptyDataDir)
    throw new Error(
      `the walk-through's set-up block changed; update ${import.meta.url} to perform it:\n${setUp}`,
    );
  context.dir = mkdtempSync(join(tmpdir(), 'datagate-walkthrough-'));
  context.env = { DATA_DIR: join(context.dir, 'data') };
  const firstStart = { ...context.env, ADMIN_EMAIL: admin[1]!, ADMIN_PASSWORD: admin[2]! };
  const sample = await datagate(['sample', 'cargos', '--rows', rows], firstStart);
  assert.is(sample.code, 0, sample.stderr);
  context.server = await serve(firstStart);
});

walkthrough.after(async ({ dir, server }) => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

walkthrough('every command of the walk-through prints what the README shows', async (context) => {
  const shells = shellsOf(walkthroughBlocks().slice(1));
  const steps = shells.flatMap((shell) => shell.steps);
  assert.ok(steps.filter((step) => step.expected).length >= 10, 'the walk-through lost its # → lines');
  // Issue 15's "done when": the walk-through shows relations at work; issue 19's: a cargo's photo and
  // its 200-pixel thumbnail.
  for (const shown of [
    'fields=*,shipment.number,shipment.customer.name',
    'filter[shipment][customer][name]',
    'aggregate[avg]=temperature&groupBy[]=shipment',
    'related_collection":"datagate_files"',
    '/assets/$PHOTO?width=200&format=webp',
  ]) {
    assert.ok(
      steps.some((step) => step.commands.includes(shown)),
      `the walk-through lost its step with ${shown}`,
    );
  }
  assert.ok(
    shells.some((shell) => shell.cli),
    'the walk-through lost its command-line recovery (bin/datagate.mjs)',
  );
  const outputs = mkdtempSync(join(context.dir, 'outputs-'));
  let first = 0;
  for (const shell of shells) {
    if (shell.cli) {
      await context.server?.stop();
      context.server = undefined;
    } else context.server ??= await serve(context.env, { firstStart: false });
    const env = shell.cli ? context.env : { DATAGATE: context.server!.url };
    const run = await runSteps(shell.steps, first, env, outputs);
    shell.steps.forEach((step, index) => {
      const file = join(outputs, String(first + index));
      assert.ok(existsSync(file), `bash stopped (exit ${run.code}) before:\n${step.commands}\n${run.stderr}`);
      const output = normalised(readFileSync(file, 'utf8'));
      assert.ok(
        matches(output, step.expected),
        `README step\n${step.commands}\nprinted\n${output}\ninstead of (# →)\n${step.expected}\n${run.stderr}`,
      );
    });
    assert.is(run.code, 0, run.stderr);
    first += shell.steps.length;
  }
});

walkthrough.run();
