import type { Locator, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { CARGO_IDS, cargoRows, cargosSchema } from '../support/cargos-schema.ts';
import { CHROMIUM_MISSING, withChromium } from '../support/chromium.ts';
import { seedRows } from '../support/seed-rows.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { type SeededUser, startTestApp, type TestApp } from '../support/test-app.ts';

const TITLE = 'the API explorer at /docs, in headless Chromium';
/**
 * `make test` installs Debian's chromium where it may (root with apt-get); elsewhere this suite is counted
 * as skipped, with the reason, and never as passed.
 */
const explorer = skippableSuite(TITLE, CHROMIUM_MISSING);

/** Expands an operation, runs it with "Try it out", and returns the response body shown. */
async function tryItOut(operation: Locator, body?: unknown): Promise<{ status: string; body: string }> {
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  if (body !== undefined) await operation.locator('textarea.body-param__text').fill(JSON.stringify(body));
  await operation.getByRole('button', { name: 'Execute' }).click();
  const response = operation.locator('.live-responses-table .response');
  return {
    status: (await response.locator('.response-col_status').first().textContent())?.trim() ?? '',
    body: (await response.locator('.response-col_description .microlight').first().textContent()) ?? '',
  };
}

/** A fresh app with the seed's cargos, and a fresh Chromium profile, for one test; both go away after it. */
async function withExplorer(body: (app: TestApp, admin: SeededUser, page: Page) => Promise<void>) {
  const app = await startTestApp();
  try {
    (app.persistence.schema as InMemorySchema).registerCollection(cargosSchema);
    await seedRows(app.persistence, 'cargos', cargoRows);
    const admin = await app.seedAdmin();
    await withChromium((page) => body(app, admin, page));
  } finally {
    await app.close();
  }
}

explorer('logging in, authorizing and listing cargos from the explorer', () =>
  withExplorer(async (app, admin, page) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(app.url) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });

    await page.goto(`${app.url}/docs`);
    const login = page.locator('#operations-auth-login');
    await login.waitFor();
    // Anonymous, the document holds no collection: the public role may read none.
    assert.is(await page.locator('#operations-cargos-cargos_list').count(), 0);

    const loggedIn = await tryItOut(login, { email: admin.email, password: admin.password });
    assert.is(loggedIn.status, '200', loggedIn.body);
    const { access_token: token } = JSON.parse(loggedIn.body) as { access_token: string };

    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux');
    await dialog.locator('#auth-bearer-value').fill(token);
    await dialog
      .locator('form', { has: page.locator('#auth-bearer-value') })
      .getByRole('button', { name: 'Apply credentials' })
      .click();
    await dialog.locator('.close-modal').click();

    // Authorizing fetches the document again with the token: now it lists what the admin may do.
    const list = page.locator('#operations-cargos-cargos_list');
    await list.waitFor();
    const listed = await tryItOut(list);
    assert.is(listed.status, '200', listed.body);
    const rows = JSON.parse(listed.body) as Array<{ id: string }>;
    assert.equal(rows.map((row) => row.id).sort(), Object.values(CARGO_IDS).sort());

    // Logging out of the explorer fetches the anonymous document again.
    await page.locator('.auth-wrapper button.authorize').click();
    await dialog.getByRole('button', { name: 'Remove authorization' }).first().click();
    await dialog.locator('.close-modal').click();
    await list.waitFor({ state: 'detached' });

    assert.equal(errors, [], 'no script errors');
    assert.equal(foreign, [], 'nothing requested from another origin');
  }),
);

explorer.run();
