import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { PACKAGE_ROOT } from '../../src/package-root.ts';
import { cargoRows, cargosSchema } from './cargos-schema.ts';
import { CHROMIUM_MISSING } from './chromium.ts';
import { seedRows } from './seed-rows.ts';
import { skippableSuite } from './skippable-suite.ts';
import { type SeededUser, startTestApp, type TestApp } from './test-app.ts';

/** Screenshots of each studio screen, kept after the run (CI keeps the folder as an artifact). */
export const STUDIO_ARTIFACTS = join(PACKAGE_ROOT, 'test-artifacts', 'studio');

/**
 * Watches a page for what must never happen in the studio: a script error, a console error, or a request
 * to any origin but the server's. `assertClean` fails the test naming them.
 */
export function watchPage(page: Page, app: TestApp) {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${app.url}/`)) problems.push(`request to another origin: ${url}`);
  });
  return {
    problems,
    assertClean(allowed: (problem: string) => boolean = () => false) {
      assert.equal(
        problems.filter((problem) => !allowed(problem)),
        [],
        'no script errors and no request to another origin',
      );
    },
  };
}

/** Opens the studio and logs in through its form, waiting for the collections to show. */
export async function logInToStudio(page: Page, app: TestApp, user: { email: string; password: string }) {
  await page.goto(`${app.url}/studio/`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}

let axeSource: Promise<string> | undefined;

/**
 * axe-core's serious and critical violations on the page as it is now, as `rule: target` lines. axe is
 * evaluated through the DevTools protocol, which the page's CSP does not govern (an injected <script>
 * would be refused, as it should be).
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const source = await axeSource;
  // A string is evaluated as is, through the protocol; inside the page, eval itself is refused by the CSP.
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  });
  return violations;
}

type AxeViolation = { id: string; impact: string | null; nodes: { target: string[] }[] };

/** Keeps a screenshot of the page as `<name>.png` under STUDIO_ARTIFACTS. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  await mkdir(STUDIO_ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(STUDIO_ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Waits until the item table has its answer (it is `aria-busy` while a page loads). */
export async function settled(page: Page): Promise<void> {
  await page.locator('table[aria-busy="false"]').waitFor();
}

/**
 * Polls `condition` from the test until it holds. `page.waitForFunction` would not do: while its predicate
 * is false it re-evaluates it inside the page, which the studio's CSP refuses (no `eval`).
 */
export async function waitUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the Operator role of the studio suites may read of cargos: no temperature, and no deleted rows. */
export const OPERATOR_FIELDS = ['id', 'description', 'is_deleted', 'code', 'crate_count'];

export type StudioFixture = {
  app: TestApp;
  admin: SeededUser;
  adminToken: string;
  operatorRole: string;
  operator: SeededUser;
};

/** A suite of browser tests sharing one app of `startStudioApp(rows)`, skipped when Chromium is missing. */
export function studioSuite(
  title: string,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>> = cargoRows,
): Test<StudioFixture> {
  const studio = skippableSuite<StudioFixture>(title, CHROMIUM_MISSING);
  studio.before(async (context) => {
    Object.assign(context, await startStudioApp(rows));
  });
  studio.after(async ({ app }) => {
    await app?.close();
  });
  return studio;
}

/**
 * An app with the seed's cargos (and `rows`, when given, instead), its first admin, and an Operator role
 * reading OPERATOR_FIELDS of the cargos that are not deleted, with one user of it; `env` configures the app.
 */
export async function startStudioApp(
  rows: ReadonlyArray<Readonly<Record<string, unknown>>> = cargoRows,
  env: Record<string, string> = {},
): Promise<StudioFixture> {
  const app = await startTestApp({ env });
  (app.persistence.schema as InMemorySchema).registerCollection(cargosSchema);
  await seedRows(app.persistence, 'cargos', rows);
  const admin = await app.seedAdmin();
  const { access_token: adminToken } = await app.login(admin);
  const role = await app.createRole({ name: 'Operator' });
  const granted = await app.request('POST', '/permissions', {
    token: adminToken,
    body: {
      role: role.id,
      collection: 'cargos',
      action: 'read',
      fields: OPERATOR_FIELDS,
      permissions: { is_deleted: { _eq: false } },
    },
  });
  assert.is(granted.status, 200, granted.text);
  return { app, admin, adminToken, operatorRole: role.id, operator: await app.createUser({ role: role.id }) };
}
