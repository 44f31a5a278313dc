// What `make bench` and `make soak` share: child processes that never outlive the harness, throwaway
// databases on a loopback PostgreSQL, and readings of a process from /proc.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import pg from 'pg';

export type Ending = { code: number | null; signal: string | null; ms: number };

/** The children of one harness run, in the package root; all are stopped by `stopAll` or killed at exit. */
export class ChildProcesses {
  private readonly children = new Set<ChildProcess>();

  constructor(private readonly root: string) {
    // Last resort (an uncaught throw): no child outlives the harness.
    process.on('exit', () => {
      for (const child of this.children) child.kill('SIGKILL');
    });
  }

  /**
   * A long-running Node child whose output goes straight to a file (the harness spends no CPU on it); `command`
   * runs Node under another program (valgrind), `args` then naming Node first.
   */
  readonly start = (
    args: string[],
    options: { env: NodeJS.ProcessEnv; logFile: string; command?: string },
  ): ChildProcess => {
    const out = openSync(options.logFile, 'w');
    const child = spawn(options.command ?? process.execPath, args, {
      cwd: this.root,
      env: options.env,
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    this.track(child);
    return child;
  };

  /** Runs a command to completion; rejects with its output on a non-zero exit or after `timeoutMs`. */
  readonly run = (
    command: string,
    args: string[],
    options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
  ): Promise<string> => {
    return new Promise<string>((resolve, reject) => {
      const child = spawn(command, args, {
        cwd: this.root,
        env: options.env ?? process.env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      this.track(child);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout);
        else reject(new Error(`${command} ${args.join(' ')} → ${code ?? signal}\n${stderr}${stdout}`.trim()));
      });
      // A command that does not read its input (git) may exit first: writing to it then fails with EPIPE.
      child.stdin.on('error', () => {});
      child.stdin.end(options.input ?? '');
    });
  };

  /** SIGTERM, then SIGKILL after `graceMs`. Resolves with how it ended and how long that took. */
  readonly stop = (child: ChildProcess, graceMs = 5000): Promise<Ending> => {
    const began = performance.now();
    const ended = () => ({ code: child.exitCode, signal: child.signalCode, ms: performance.now() - began });
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(ended());
    return new Promise((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(ended());
      });
      child.kill('SIGTERM');
    });
  };

  readonly stopAll = async (graceMs: number): Promise<void> => {
    await Promise.all([...this.children].map((child) => this.stop(child, graceMs)));
  };

  private track(child: ChildProcess): void {
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
  }
}

// ---------------------------------------------------------------- settings

/** The number in variable `name` (`fallback` when unset or empty); throws on anything else or below `min`. */
export function numberFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < min)
    throw new Error(`${name}: expected a number ≥ ${min}, got ${raw}`);
  return value;
}

// ---------------------------------------------------------------- databases

export function quoteId(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withClient<T>(
  url: string,
  work: (client: pg.Client) => Promise<T>,
  applicationName = 'datagate-harness',
): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: applicationName });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A throwaway database `name` on the server of `serverUrl`. */
export async function createDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, (client) => client.query(`create database ${quoteId(name)}`));
}

/** Drops `name` with whatever is still connected to it. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, (client) =>
    client.query(`drop database if exists ${quoteId(name)} with (force)`),
  );
}

/** The harnesses load the database server hard and create databases on it: never a remote one. */
export function assertLoopback(url: string, harness: string): void {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host)) {
    throw new Error(
      `DATABASE_URL must point at a loopback address (got ${host}): the ${harness} loads the server hard`,
    );
  }
}

// ---------------------------------------------------------------- /proc and the network

export function rssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The CPU time a process has used so far (user + system), in seconds: what a run costs the server whatever
 * else shares the cores, unlike its latencies.
 */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command (which may hold spaces, hence from the last ')'): utime and stime are 12 and 13.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** USER_HZ: /proc counts CPU time in these on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * `pid` and every process under it: a server with `http.workers` is a primary and its workers, and what
 * it costs is what they cost together.
 */
export function processTree(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number);
  } catch {
    // gone, or no such file on this kernel: the process alone
  }
  return [pid, ...children.flatMap(processTree)];
}

/** The sum of `reading` over `pid`'s process tree; null when none of them could be read. */
export function treeTotal(pid: number | undefined, reading: (pid: number) => number | null): number | null {
  const values = processTree(pid)
    .map(reading)
    .filter((value): value is number => value !== null);
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0);
}

export function openFds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** utime + stime of a process in ms (clock ticks are 10 ms on Linux). */
export function cpuTimeMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers below 500; fails early when `child` (the server) exits. */
export async function waitFor(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null)
      throw new Error(`the server exited (${child.exitCode}) before answering ${url}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms`);
}

// ---------------------------------------------------------------- the server under test

/** The built CLI (`make build`: the tsc build bundled, decision 0042), as production runs it. */
export const BUILT_CLI = 'dist/bundle/datagate.js';

export type ServerSettings = {
  databaseUrl: string;
  port: number;
  admin: { email: string; password: string };
  /** Unset: the production default (info, one access-log line per request). */
  logLevel?: string;
  /** More variables, e.g. `ACCESS_TOKEN_TTL`; they win over everything above. */
  extra?: NodeJS.ProcessEnv;
};

/**
 * A production server's environment on loopback with a fresh random secret. Inherited `LOG_LEVEL` and
 * `LOGIN_THROTTLE` are dropped, so the shell a harness runs in cannot change what it measures.
 */
export function productionServerEnv(settings: ServerSettings): NodeJS.ProcessEnv {
  const { LOG_LEVEL: _level, LOGIN_THROTTLE: _throttle, ...inherited } = process.env;
  return {
    ...inherited,
    NODE_ENV: 'production',
    DATABASE_URL: settings.databaseUrl,
    SECRET: randomBytes(32).toString('hex'),
    HOST: '127.0.0.1',
    PORT: String(settings.port),
    ADMIN_EMAIL: settings.admin.email,
    ADMIN_PASSWORD: settings.admin.password,
    ...(settings.logLevel ? { LOG_LEVEL: settings.logLevel } : {}),
    ...settings.extra,
  };
}

/** A harness's call the server answered with something other than 2xx. */
export class ApiCallRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One JSON call to a harness's server, as a client would make it; answers the body's text, and throws
 * `ApiCallRefused` with the status and the start of the body on anything but 2xx (a harness stops at its
 * first surprise). A call that takes more than 30 s is abandoned: a harness must not hang on a stuck server.
 */
export async function apiCall(
  method: string,
  url: string,
  token?: string | null,
  body?: unknown,
): Promise<string> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status >= 300)
    throw new ApiCallRefused(response.status, `${method} ${url} → ${response.status} ${text.slice(0, 300)}`);
  return text;
}

/** The id of the role named `name` (the harnesses make theirs with `datagate roles create`). */
export async function roleIdByName(url: string, name: string): Promise<string> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ id: string }>('select id from datagate_roles where name = $1', [
      name,
    ]);
    if (!rows[0]) throw new Error(`No role named ${name}`);
    return rows[0].id;
  });
}

/** A run of the built CLI with arguments, as a harness makes one (`ChildProcesses.run` bound to its env). */
export type CliRun = (...args: string[]) => Promise<unknown>;

/**
 * The bench database every harness starts from: migrated, the admin bootstrapped, `rows` sample cargos, an
 * Operator role and `operator` holding it (what the read cases and the rules are measured with).
 */
export async function seedCargosWithOperator(
  cli: CliRun,
  rows: number,
  operator: { email: string; password: string },
): Promise<void> {
  await cli('migrate');
  await cli('bootstrap');
  await cli('sample', 'cargos', '--rows', String(rows));
  await createOperator(cli, operator);
}

/** The Operator role and `operator` holding it, on a migrated, bootstrapped database. */
export async function createOperator(
  cli: CliRun,
  operator: { email: string; password: string },
): Promise<void> {
  await cli('roles', 'create', '--name', 'Operator');
  await cli(
    'users',
    'create',
    '--email',
    operator.email,
    '--password',
    operator.password,
    '--role',
    'Operator',
  );
}
