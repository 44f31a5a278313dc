import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { cargosSchema } from '../support/cargos-schema.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const REDOCLY = join(
  dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
  'bin',
  'cli.js',
);

/** The repository's lint settings: the recommended rules, none turned off. */
const CONFIG = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));

/** The documents an admin, a restricted role and an anonymous caller are served, by file name. */
async function documentsOf(app: TestApp, profile: string): Promise<Record<string, unknown>> {
  (app.persistence.schema as InMemorySchema).registerCollection(cargosSchema);
  const tokenOf = async (user: { email: string; password: string }) => {
    const login = await app.request('POST', '/auth/login', { body: user });
    assert.is(login.status, 200, login.text);
    const body = login.body as { access_token?: string; data?: { access_token: string } };
    return body.data?.access_token ?? body.access_token!;
  };
  const admin = await tokenOf(await app.seedAdmin());
  const role = await app.createRole({ name: 'Operator' });
  for (const grant of [
    { role: role.id, collection: 'cargos', action: 'read', fields: ['id', 'description'] },
    { role: role.id, collection: 'cargos', action: 'update', fields: ['description'] },
    { role: null, collection: 'cargos', action: 'read', fields: ['id'] },
  ]) {
    const created = await app.request('POST', '/permissions', { token: admin, body: grant });
    assert.is(created.status, 200, created.text);
  }
  const operator = await tokenOf(await app.createUser({ role: role.id }));
  const documents: Record<string, unknown> = {};
  for (const [caller, token] of [
    ['admin', admin],
    ['operator', operator],
    ['anonymous', undefined],
  ] as const) {
    const response = await app.request('GET', '/server/specs/oas', { token });
    assert.is(response.status, 200, response.text);
    documents[`${profile}-${caller}.json`] = response.body;
  }
  return documents;
}

test("every caller's document passes Redocly's recommended rules, in both profiles", async () => {
  const documents: Record<string, unknown> = {};
  for (const profile of ['plain', 'directus']) {
    const app = await startTestApp({ env: { API_PROFILE: profile } });
    try {
      Object.assign(documents, await documentsOf(app, profile));
    } finally {
      await app.close();
    }
  }
  // One document broken on purpose: the lint must find what the issue found (no servers, no license).
  const { servers, info, ...rest } = documents['plain-admin.json'] as { servers: unknown; info: object };
  documents['broken.json'] = { ...rest, info: { ...info, license: undefined } };

  const dir = await mkdtemp(join(tmpdir(), 'datagate-redocly-'));
  try {
    for (const [name, document] of Object.entries(documents)) {
      await writeFile(join(dir, name), JSON.stringify(document, null, 2));
    }
    // One run for all of them (each start of the CLI costs about a second); one problem a line.
    const run = await promisify(execFile)(
      process.execPath,
      [REDOCLY, 'lint', '--config', CONFIG, '--format=github-actions', ...Object.keys(documents)],
      { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).catch((error: { stdout: string; stderr: string }) => error);
    const problems = run.stdout.split('\n').filter((line) => line.startsWith('::'));
    const found = (file: string) => problems.filter((line) => line.includes(`file=${file},`));
    for (const name of Object.keys(documents).filter((file) => file !== 'broken.json')) {
      assert.equal(found(name), [], name);
    }
    const broken = found('broken.json').join('\n');
    assert.match(broken, /title=no-empty-servers/, run.stderr);
    assert.match(broken, /title=info-license/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
