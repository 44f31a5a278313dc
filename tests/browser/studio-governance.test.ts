import type { Locator, Page, Request } from 'playwright-core';
import * as assert from 'uvu/assert';
import { cargoRows } from '../support/cargos-schema.ts';
import { withChromium } from '../support/chromium.ts';
import {
  keepScreenshot,
  logInToStudio,
  OPERATOR_FIELDS,
  seriousAccessibilityViolations,
  settled,
  startStudioApp,
  studioSuite,
  watchPage,
} from '../support/studio-browser.ts';

const governance = studioSuite(
  'the studio governs: users, roles, the permission matrix and "view as role", in headless Chromium',
);

const NOT_DELETED = cargoRows.filter((row) => row.is_deleted !== true);

/** Refusals the tests ask for on purpose: Chromium logs each failed fetch as a console error. */
const EXPECTED_REFUSALS = (problem: string) => /status of (400|409)/.test(problem);

async function columns(page: Page): Promise<string[]> {
  const table = page.getByRole('table');
  await table.getByRole('columnheader').first().waitFor();
  await settled(page);
  return (await table.getByRole('columnheader').allTextContents()).map((text) => text.trim());
}

async function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === element.ownerDocument.activeElement);
}

/**
 * Waits until `locator` has the focus: the studio moves it in an effect after rendering, and a key pressed
 * before that (a loaded machine) would go to whatever had it — another button of the page.
 */
async function focusedSoon(locator: Locator): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await isFocused(locator)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Presses Tab until the focused element's text is `name`, as someone without a mouse would. */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let presses = 0; presses < 200; presses++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate('document.activeElement?.textContent?.trim() ?? ""');
    if (focused === name) return;
  }
  assert.unreachable(`Tab never reached "${name}"`);
}

governance(
  'an admin makes a role, a read permission on cargos of some fields through the matrix, and a user of that role, who then sees exactly those columns',
  ({ app, admin }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      await logInToStudio(page, app, admin);
      await page.getByRole('link', { name: 'Roles' }).click();
      await page.getByRole('link', { name: 'Operator' }).waitFor();
      assert.equal(await seriousAccessibilityViolations(page), [], 'roles screen');
      await keepScreenshot(page, 'roles');

      await page.getByLabel('Name').fill('Clerk');
      await page.getByRole('button', { name: 'Create role' }).click();
      await page.getByRole('heading', { level: 1, name: 'Clerk' }).waitFor();

      await page.getByRole('button', { name: 'cargos read: none' }).click();
      const editor = page.getByRole('dialog', { name: 'Clerk: read on cargos' });
      await editor.waitFor();
      // JSON is checked before anything is sent, and the error shows next to its field.
      const rows = editor.getByLabel(/^Rows/);
      await rows.fill('{"is_deleted": ');
      await editor.getByRole('button', { name: 'Save' }).click();
      await editor.getByText(/This is not JSON/).waitFor();
      assert.is(await rows.getAttribute('aria-invalid'), 'true');
      await rows.fill('{"is_deleted": {"_eq": false}}');
      for (const field of ['id', 'description', 'code'])
        await editor.getByLabel(field, { exact: true }).check();
      assert.equal(await seriousAccessibilityViolations(page), [], 'permission editor');
      await keepScreenshot(page, 'permission-editor');
      await editor.getByRole('button', { name: 'Save' }).click();
      await editor.waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'cargos read: some rows, 3 fields' }).waitFor();
      assert.equal(await seriousAccessibilityViolations(page), [], 'permission matrix');
      await keepScreenshot(page, 'permissions');

      await page.getByRole('link', { name: 'Users', exact: true }).click();
      await page.getByRole('link', { name: admin.email }).waitFor();
      await page.getByRole('link', { name: 'New user' }).click();
      await page.getByLabel('E-mail').fill('clerk@example.com');
      await page.getByLabel('Password').fill('short');
      await page.getByLabel('Role').selectOption({ label: 'Clerk' });
      await page.getByRole('button', { name: 'Create user' }).click();
      // The server's refusal names the field; it is shown next to it and the control says so.
      const password = page.getByLabel('Password');
      await page.locator('[aria-invalid="true"]').waitFor();
      const describedBy = await password.getAttribute('aria-describedby');
      assert.ok(describedBy, 'the password control points at its error');
      assert.match(
        (await page.locator(`[id="${describedBy}"]`).textContent()) ?? '',
        /at least 8 characters/,
      );
      await password.fill('clerk-password-1');
      await page.getByRole('button', { name: 'Create user' }).click();
      const row = page.getByRole('row', { name: /clerk@example\.com/ });
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /Clerk.*active/);
      assert.equal(await seriousAccessibilityViolations(page), [], 'users screen');
      await keepScreenshot(page, 'users');

      await page.getByRole('button', { name: 'Log out' }).click();
      await logInToStudio(page, app, { email: 'clerk@example.com', password: 'clerk-password-1' });
      await page.getByRole('link', { name: 'cargos' }).click();
      assert.equal(await columns(page), ['id', 'description', 'code']);
      assert.is(await page.getByRole('table').locator('tbody tr').count(), NOT_DELETED.length);
      watch.assertClean(EXPECTED_REFUSALS);
    }),
);

governance(
  'users: edited, suspended and deleted after a confirmation; a clash shows at its field and the last admin is refused plainly',
  ({ app, admin, adminToken, operatorRole }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      const user = await app.createUser();
      await logInToStudio(page, app, admin);
      await page.getByRole('link', { name: 'Users', exact: true }).click();

      await page.getByRole('link', { name: admin.email }).click();
      await page.getByRole('button', { name: 'Suspend user' }).click();
      const refusal = page.getByRole('alert');
      await refusal.waitFor();
      assert.match(
        (await refusal.textContent()) ?? '',
        /^Refused: .*no active user with admin access.*another active user/,
      );

      await page.getByRole('link', { name: 'Back to the users' }).click();
      await page.getByRole('link', { name: user.email }).click();
      await page.getByLabel('E-mail').fill(admin.email);
      await page.getByRole('button', { name: 'Save' }).click();
      const email = page.getByLabel('E-mail');
      await page.locator('input[aria-invalid="true"]').waitFor();
      assert.is(await email.getAttribute('aria-invalid'), 'true');
      await email.fill(user.email);
      await page.getByLabel('First name').fill('Ada');
      await page.getByLabel('Role').selectOption({ label: 'Operator' });
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      assert.equal(await seriousAccessibilityViolations(page), [], 'user screen');
      const edited = await app.request('GET', `/users/${user.id}`, { token: adminToken });
      assert.equal(
        (({ first_name, role, status }) => ({ first_name, role, status }))(
          edited.body as Record<string, unknown>,
        ),
        { first_name: 'Ada', role: operatorRole, status: 'active' },
      );

      await page.getByRole('button', { name: 'Suspend user' }).click();
      await page.getByRole('button', { name: 'Reactivate user' }).waitFor();
      const suspended = await app.request('GET', `/users/${user.id}`, { token: adminToken });
      assert.is((suspended.body as { status: string }).status, 'suspended');

      await page.getByRole('button', { name: 'Delete user…' }).click();
      // The question takes the focus on "Cancel": Enter twice does not delete by accident.
      const cancel = page.getByRole('group', { name: /Delete .*cannot be undone/ }).getByRole('button', {
        name: 'Cancel',
      });
      await cancel.waitFor();
      assert.ok(await focusedSoon(cancel));
      assert.equal(await seriousAccessibilityViolations(page), [], 'delete confirmation');
      await page.getByRole('button', { name: 'Yes, delete' }).click();
      await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
      await page.getByRole('link', { name: admin.email }).waitFor();
      assert.is(await page.getByRole('link', { name: user.email }).count(), 0);
      assert.is((await app.request('GET', `/users/${user.id}`, { token: adminToken })).status, 404);
      watch.assertClean(EXPECTED_REFUSALS);
    }),
);

governance(
  '"view as role" shows the admin the Operator\'s view, read-only, and every request of the preview carries the preview token',
  ({ app, admin, operatorRole }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      await logInToStudio(page, app, admin);
      await page.getByRole('link', { name: 'Roles' }).click();
      await page.getByRole('link', { name: 'Operator' }).click();
      await page.getByRole('heading', { level: 1, name: 'Operator' }).waitFor();
      // The role screen's own reads (the permission matrix, page after page) end before the preview starts.
      await page.locator('table.matrix').waitFor();

      const sent: Request[] = [];
      const minted = page.waitForResponse(
        (response) => response.url().endsWith(`/roles/${operatorRole}/preview`) && response.status() === 200,
      );
      page.on('request', (request) => sent.push(request));
      await page.getByRole('link', { name: 'View as this role' }).click();
      const { access_token: previewToken } = (await (await minted).json()) as { access_token: string };
      const banner = page.getByRole('region', { name: 'Role preview' });
      await banner.getByText('Viewing as Operator — read-only.').waitFor();

      await page.getByRole('main').getByRole('link', { name: 'cargos' }).click();
      assert.equal(
        await columns(page),
        OPERATOR_FIELDS,
        'no column for temperature, which Operator may not read',
      );
      assert.is(await page.getByRole('link', { name: 'New item' }).count(), 0);
      assert.is(await page.getByRole('table').locator('tbody tr').count(), NOT_DELETED.length);
      assert.is(new URL(page.url()).pathname, `/studio/preview/${operatorRole}/collections/cargos`);
      const keyLink = await page.getByRole('table').locator('tbody a').first().getAttribute('href');
      assert.match(keyLink ?? '', new RegExp(`^/studio/preview/${operatorRole}/collections/cargos/`));
      assert.equal(await seriousAccessibilityViolations(page), [], 'role preview');
      await keepScreenshot(page, 'view-as-role');

      // The admin's client asks for the preview and the role's name; everything the preview reads
      // carries the preview's token, and never the admin's.
      // The studio's own files (its icon, which a fresh context fetches) carry no token at all.
      const reads = sent.filter((request) => {
        const path = new URL(request.url()).pathname;
        return !/\/roles\/[^/]+(\/preview)?(\?|$)/.test(path) && !path.startsWith('/studio/');
      });
      const paths = reads.map((request) => new URL(request.url()).pathname);
      assert.ok(paths.includes('/server/specs/oas'), paths.join(' '));
      assert.ok(paths.includes('/items/cargos'), paths.join(' '));
      for (const request of reads) {
        assert.is(request.headers().authorization, `Bearer ${previewToken}`, request.url());
      }

      await banner.getByRole('link', { name: 'Stop viewing as Operator' }).click();
      await page.getByRole('heading', { level: 1, name: 'Operator' }).waitFor();
      assert.is(await page.getByRole('region', { name: 'Role preview' }).count(), 0);

      // The public role: what callers without a token see, here nothing.
      await page.getByRole('link', { name: 'Back to the roles' }).click();
      await page.getByRole('link', { name: 'Public' }).click();
      await page.getByRole('link', { name: 'View as this role' }).click();
      await banner.getByText('Viewing as Public — read-only.').waitFor();
      await page.getByText('There is no collection you may read.').waitFor();
      watch.assertClean();
    }),
);

governance(
  "a page of users that fails shows why, without the last page's users; the table is not left busy",
  () =>
    withChromium(async (page) => {
      // An app of its own: 52 users make two pages, which the suite's other tests would count.
      const { app, admin } = await startStudioApp();
      try {
        for (let made = 0; made < 50; made++) await app.createUser();
        const watch = watchPage(page, app);
        await logInToStudio(page, app, admin);
        await page.getByRole('link', { name: 'Users' }).click();
        const pager = page.getByRole('navigation', { name: 'Pages' });
        await pager.getByText('1–50 of 52').waitFor();
        const table = page.getByRole('table');
        assert.is(await table.locator('tbody tr').count(), 50);

        await page.route('**/users?**', (route) =>
          new URL(route.request().url()).searchParams.get('offset') === '50'
            ? route.fulfill({
                status: 503,
                contentType: 'application/json',
                body: JSON.stringify({
                  errors: [{ message: 'The database is busy.', extensions: { code: 'SERVICE_BUSY' } }],
                }),
              })
            : route.continue(),
        );
        await pager.getByRole('button', { name: 'Next page' }).click();
        await page.getByRole('alert').filter({ hasText: 'The database is busy. (SERVICE_BUSY)' }).waitFor();
        assert.is(await table.locator('tbody tr').count(), 0, 'not the first page’s users under page 2');
        assert.is(await table.getAttribute('aria-busy'), 'false', 'not busy: it has its answer');
        assert.is((await pager.locator('span').textContent())?.trim(), '', 'no count: nothing was read');
        assert.equal(await seriousAccessibilityViolations(page), [], 'users with an error');

        await pager.getByRole('button', { name: 'Previous page' }).click();
        await pager.getByText('1–50 of 52').waitFor();
        assert.is(await page.getByRole('alert').count(), 0);
        watch.assertClean((problem) => /status of 503/.test(problem));
      } finally {
        await app.close();
      }
    }),
);

governance(
  'keyboard only: a question cancelled, or answered and refused, gives the focus back to its button',
  ({ app, admin, adminToken }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      await logInToStudio(page, app, admin);
      await page.getByRole('link', { name: 'Users', exact: true }).click();
      await page.getByRole('link', { name: admin.email }).click();
      const ask = page.getByRole('button', { name: 'Delete user…' });
      await ask.focus();
      await page.keyboard.press('Enter');
      const question = page.getByRole('group', { name: /Delete .*cannot be undone/ });
      const cancel = question.getByRole('button', { name: 'Cancel' });
      assert.ok(await focusedSoon(cancel));
      await page.keyboard.press('Enter');
      await ask.waitFor();
      assert.ok(await focusedSoon(ask), 'Cancel gives the focus back, not to the top of the page');

      // The last admin may not be deleted: the refusal is said, and the focus is where it was.
      await page.keyboard.press('Enter');
      assert.ok(await focusedSoon(cancel));
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Enter');
      await page
        .getByRole('alert')
        .filter({ hasText: /^Refused: / })
        .waitFor();
      await ask.waitFor();
      assert.ok(await focusedSoon(ask), 'after the refusal too');
      assert.is((await app.request('GET', `/users/${admin.id}`, { token: adminToken })).status, 200);
      watch.assertClean(EXPECTED_REFUSALS);
    }),
);

governance('a non-admin sees no governance links, and /studio/roles is not found', ({ app, operator }) =>
  withChromium(async (page) => {
    const watch = watchPage(page, app);
    await page.goto(`${app.url}/studio/roles`);
    await page.getByLabel('E-mail').fill(operator.email);
    await page.getByLabel('Password').fill(operator.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Studio' });
    await nav.getByRole('link', { name: 'Collections' }).waitFor();
    for (const name of ['Users', 'Roles', 'Permissions']) {
      assert.is(await nav.getByRole('link', { name }).count(), 0, name);
    }
    watch.assertClean();
  }),
);

governance(
  'keyboard only: a matrix cell opens with Enter, is edited and saved, and the focus comes back to it',
  ({ app, admin, adminToken, operatorRole }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      await logInToStudio(page, app, admin);
      await tabTo(page, 'Roles');
      await page.keyboard.press('Enter');
      await tabTo(page, 'Operator');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Operator' }).waitFor();

      // Escape leaves a cell's editor without a change.
      await tabTo(page, 'cargos delete: none');
      await page.keyboard.press('Enter');
      const deleting = page.getByRole('dialog', { name: 'Operator: delete on cargos' });
      await deleting.waitFor();
      await page.keyboard.press('Escape');
      await deleting.waitFor({ state: 'hidden' });

      await tabTo(page, 'cargos update: none');
      await page.keyboard.press('Enter');
      const editor = page.getByRole('dialog', { name: 'Operator: update on cargos' });
      await editor.waitFor();
      // The dialog's first control has the focus: the row filter.
      await page.keyboard.type('{"is_deleted": {"_eq": false}}');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Space'); // All fields (*)
      await tabTo(page, 'Save');
      await page.keyboard.press('Enter');
      await editor.waitFor({ state: 'hidden' });
      const cell = page.getByRole('button', { name: 'cargos update: some rows, all fields' });
      await cell.waitFor();
      assert.ok(await focusedSoon(cell), 'the focus is back on the cell');

      const filter = JSON.stringify({ role: { _eq: operatorRole }, action: { _eq: 'update' } });
      const stored = await app.request('GET', `/permissions?filter=${encodeURIComponent(filter)}`, {
        token: adminToken,
      });
      assert.equal(
        (stored.body as Record<string, unknown>[]).map(({ collection, permissions, fields }) => ({
          collection,
          permissions,
          fields,
        })),
        [{ collection: 'cargos', permissions: { is_deleted: { _eq: false } }, fields: ['*'] }],
      );
      watch.assertClean();
    }),
);

governance(
  'a preview past its life is asked for again, and the read it failed is retried with the new token',
  ({ app, admin, operatorRole }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      await logInToStudio(page, app, admin);
      const previews: string[] = [];
      page.on('response', async (response) => {
        if (response.url().endsWith(`/roles/${operatorRole}/preview`) && response.status() === 200) {
          previews.push(((await response.json()) as { access_token: string }).access_token);
        }
      });
      await page.getByRole('link', { name: 'Roles' }).click();
      await page.getByRole('link', { name: 'Operator' }).click();
      await page.getByRole('link', { name: 'View as this role' }).click();
      await page.getByRole('main').getByRole('link', { name: 'cargos' }).click();
      await settled(page);
      assert.is(previews.length, 1);

      // Past every access token's life (this moves the server's clock: keep this test last).
      app.clock.advance(16 * 60_000);
      const retried = page.waitForRequest(
        (request) =>
          request.url().includes('/items/cargos?sort=code') &&
          request.headers().authorization !== `Bearer ${previews[0]}`,
      );
      await page.getByRole('columnheader', { name: 'code' }).getByRole('button').click();
      const retry = await retried;
      await page.locator('th[aria-sort="ascending"]').waitFor();
      await settled(page);
      assert.is(previews.length, 2, 'a second preview was asked for');
      assert.is(retry.headers().authorization, `Bearer ${previews[1]}`);
      assert.is(await page.getByRole('table').locator('tbody tr').count(), NOT_DELETED.length);
      // The expired token's 401s (the preview's, then the admin's own, renewed by its refresh token).
      watch.assertClean((problem) => /status of 401/.test(problem));
    }),
);

governance.run();
