import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { administer, postgresSkip, testDatabaseUrl } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

/**
 * Uploads and downloads stream (docs/api.md §15, docs/decisions/0037): a file of 256 MiB (FILES_MEMORY_MB
 * changes it; `make soak-sizes` sends 1 GiB) goes up and comes back through a server in a process of its
 * own, files on disk, while its resident memory is sampled from outside; it may rise by less than 64 MB
 * either way, a quarter of the file. The bytes are generated as they are sent and dropped as they arrive:
 * neither side ever holds the file. Measured on a shared 2-core box with 1 GiB: about 6 s for both ways,
 * RSS up by ~9 MB during the upload and ~2 MB during the download.
 */

const FILE_MB = Number(process.env.FILES_MEMORY_MB ?? 256);
const RSS_RISE_MAX_MB = 64;
const CHUNK = Buffer.alloc(1024 * 1024);
for (let index = 0; index < CHUNK.length; index++) CHUNK[index] = (index * 7919) % 251;
const BOUNDARY = 'datagate-memory';

type Server = { child: ChildProcess; url: string; token: string; dir: string };

async function startServer(databaseUrl?: string): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), 'datagate-files-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/files-server.ts'], {
    env: { ...process.env, FILES_DIR: dir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end !== -1) resolve(out.slice(0, end));
    });
    child.on('exit', (code) => reject(new Error(`the files server exited with ${code}`)));
  });
  return { child, dir, ...(JSON.parse(line) as { url: string; token: string }) };
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Runs `work` while sampling the process's RSS; the highest sample. */
async function peakRssDuring(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = await rssMb(pid);
  let running = true;
  const sampling = (async () => {
    while (running) {
      peak = Math.max(peak, await rssMb(pid));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await sampling;
  }
  return Math.max(peak, await rssMb(pid));
}

/** POSTs a generated file of `mb` MiB as Directus's form; resolves with the row's id. */
function upload(server: Server, mb: number): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        method: 'POST',
        path: '/files?fields=id,filesize',
        headers: {
          Authorization: `Bearer ${server.token}`,
          'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
        },
      },
      async (response) => {
        let text = '';
        for await (const chunk of response) text += chunk;
        if (response.statusCode !== 200) reject(new Error(`upload: ${response.statusCode} ${text}`));
        else resolve((JSON.parse(text) as { id: string }).id);
      },
    );
    req.on('error', reject);
    void (async () => {
      req.write(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\nbig\r\n` +
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      for (let sent = 0; sent < mb; sent++) {
        if (!req.write(CHUNK)) await new Promise((drained) => req.once('drain', drained));
      }
      req.end(`\r\n--${BOUNDARY}--\r\n`);
    })();
  });
}

/** GETs the asset, dropping each chunk; resolves with the bytes received. */
function download(server: Server, id: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}/assets/${id}`,
      { headers: { Authorization: `Bearer ${server.token}` } },
      async (response) => {
        let bytes = 0;
        for await (const chunk of response) bytes += (chunk as Buffer).length;
        if (response.statusCode !== 200) reject(new Error(`download: ${response.statusCode}`));
        else resolve(bytes);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function stop(server: Server) {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  await rm(server.dir, { recursive: true, force: true });
}

const serverDatabase = `datagate_files_memory_${process.pid}`;
const targets: Array<{
  name: string;
  skip?: string;
  database?: () => Promise<string>;
  drop?: () => Promise<void>;
}> = [
  { name: 'pglite' },
  postgresSkip
    ? { name: 'postgresql', skip: postgresSkip }
    : {
        name: 'postgresql',
        database: async () => {
          await administer(`create database "${serverDatabase}"`);
          return testDatabaseUrl(serverDatabase);
        },
        drop: () => administer(`drop database if exists "${serverDatabase}" with (force)`),
      },
];

for (const target of targets) {
  const test = skippableSuite<{ server: Server }>(`files in constant memory on ${target.name}`, target.skip);
  test.before(async (context) => {
    context.server = await startServer(await target.database?.());
    // Warm up: the code paths of an upload and a download are loaded before the baseline is taken.
    await download(context.server, await upload(context.server, 2));
  });
  test.after(async ({ server }) => {
    await stop(server);
    await target.drop?.();
  });

  test(`a ${FILE_MB} MiB upload and its download each raise the server's RSS by less than ${RSS_RISE_MAX_MB} MB`, async ({
    server,
  }) => {
    const pid = server.child.pid!;
    let id = '';
    const baseline = await rssMb(pid);
    const uploadPeak = await peakRssDuring(pid, async () => {
      id = await upload(server, FILE_MB);
    });
    const afterUpload = await rssMb(pid);
    let received = 0;
    const downloadPeak = await peakRssDuring(pid, async () => {
      received = await download(server, id);
    });
    assert.is(received, FILE_MB * 1024 * 1024);
    const rises = [uploadPeak - baseline, downloadPeak - afterUpload];
    assert.ok(rises[0]! < RSS_RISE_MAX_MB, `the upload raised RSS by ${rises[0]!.toFixed(0)} MB`);
    assert.ok(rises[1]! < RSS_RISE_MAX_MB, `the download raised RSS by ${rises[1]!.toFixed(0)} MB`);
  });

  test.run();
}
