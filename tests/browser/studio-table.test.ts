import * as assert from 'uvu/assert';
import { cargoRows } from '../support/cargos-schema.ts';
import { withChromium } from '../support/chromium.ts';
import {
  keepScreenshot,
  logInToStudio,
  OPERATOR_FIELDS,
  seriousAccessibilityViolations,
  settled,
  studioSuite,
  watchPage,
} from '../support/studio-browser.ts';

const studio = studioSuite('the studio: logging in and reading a table, in headless Chromium');

studio(
  'the page is served under a strict CSP, its assets for good, and nothing from another origin',
  async ({ app }) => {
    const page = await fetch(`${app.url}/studio/`);
    const html = await page.text();
    assert.is(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'self'(;|$)/);
    assert.not.match(page.headers.get('content-security-policy') ?? '', /unsafe/);
    assert.is(page.headers.get('cache-control'), 'no-cache');
    const script = /src="(\/studio\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, 'the page loads a hashed script');
    const asset = await fetch(`${app.url}${script}`);
    assert.is(asset.status, 200);
    assert.is(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
  },
);

studio('an admin logs in, sees the collections, sorts and filters cargos', ({ app, admin }) =>
  withChromium(async (page) => {
    const watch = watchPage(page, app);
    await page.goto(`${app.url}/studio/`);
    await page.getByLabel('E-mail').waitFor();
    assert.equal(await seriousAccessibilityViolations(page), [], 'login screen');
    await keepScreenshot(page, 'login');

    await logInToStudio(page, app, admin);
    await page.getByRole('link', { name: 'cargos' }).click();
    const table = page.getByRole('table');
    await table.getByRole('columnheader', { name: 'temperature' }).waitFor();
    await page.getByText(/about \d+ rows|^\d+ rows/).waitFor();
    assert.is(await table.locator('tbody tr').count(), cargoRows.length);
    assert.equal(await seriousAccessibilityViolations(page), [], 'table screen');

    // Sorting by a header: ascending, then descending, announced with aria-sort.
    const header = table.getByRole('columnheader', { name: 'code' });
    await header.getByRole('button').click();
    await settled(page);
    assert.is(await header.getAttribute('aria-sort'), 'ascending');
    const codes = await table.locator('tbody tr td:nth-child(7)').allTextContents();
    await header.getByRole('button').click();
    await page.locator('th[aria-sort="descending"]').waitFor();
    await settled(page);
    assert.equal(await table.locator('tbody tr td:nth-child(7)').allTextContents(), [...codes].reverse());

    // The filter builder writes `filter`: temperature greater than 0.
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Field of condition 1').selectOption('temperature');
    await page.getByLabel('Operator of condition 1').selectOption('_gt');
    await page.getByLabel('Value of condition 1').fill('0');
    const filtered = page.waitForRequest((request) => request.url().includes('filter='));
    await page.getByRole('button', { name: 'Apply filter' }).click();
    const url = new URL((await filtered).url());
    assert.equal(JSON.parse(url.searchParams.get('filter') ?? ''), { temperature: { _gt: 0 } });
    await settled(page);
    const expected = cargoRows.filter((row) => typeof row.temperature === 'number' && row.temperature > 0);
    assert.is(await table.locator('tbody tr').count(), expected.length);
    await keepScreenshot(page, 'table');

    watch.assertClean();
  }),
);

studio('an operator sees only the fields its role may read, and no button to create', ({ app, operator }) =>
  withChromium(async (page) => {
    const watch = watchPage(page, app);
    await logInToStudio(page, app, operator);
    await page.getByRole('link', { name: 'cargos' }).click();
    const table = page.getByRole('table');
    await table.getByRole('columnheader').first().waitFor();
    const headers = (await table.getByRole('columnheader').allTextContents()).map((text) => text.trim());
    assert.equal(headers, OPERATOR_FIELDS);
    assert.is(await page.getByRole('link', { name: 'New item' }).count(), 0);
    const visible = cargoRows.filter((row) => row.is_deleted === false || row.is_deleted === undefined);
    await settled(page);
    assert.is(await table.locator('tbody tr').count(), visible.length);
    watch.assertClean();
  }),
);

studio(
  "a page that fails shows why, without the last page's rows and count; a server out of reach is said so, and asked again",
  ({ app, admin }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      await logInToStudio(page, app, admin);
      await page.getByRole('link', { name: 'cargos', exact: true }).click();
      await settled(page);
      const table = page.getByRole('table');
      assert.is(await table.locator('tbody tr').count(), cargoRows.length);

      // A filter the API refuses (400): its error, and none of the rows it did not ask for.
      await page.getByRole('button', { name: 'Add condition' }).click();
      await page.getByLabel('Field of condition 1').selectOption('id');
      await page.getByLabel('Value of condition 1').fill('not-a-uuid');
      await page.getByRole('button', { name: 'Apply filter' }).click();
      await page.getByRole('alert').filter({ hasText: 'INVALID_QUERY' }).waitFor();
      await settled(page);
      assert.is(await table.locator('tbody tr').count(), 0, 'no rows under the error');
      assert.not.match(await page.locator('.count').innerText(), /rows/, 'no count');
      assert.is(await page.getByText('No rows.').count(), 0, 'not "No rows." either: nothing was read');
      assert.is(
        await page.getByRole('button', { name: 'Try again' }).count(),
        0,
        'the same would be refused',
      );

      // Busy (503) and out of reach: each said, each with nothing under it.
      await page.getByLabel('Remove condition 1').click();
      await page.route('**/items/cargos?**', (route) =>
        route.fulfill({
          status: 503,
          contentType: 'application/json',
          headers: { 'Retry-After': '5' },
          body: JSON.stringify({
            errors: [{ message: 'The database is busy.', extensions: { code: 'SERVICE_BUSY' } }],
          }),
        }),
      );
      await page.getByRole('button', { name: 'Apply filter' }).click();
      await page.getByRole('alert').filter({ hasText: 'The database is busy. (SERVICE_BUSY)' }).waitFor();
      assert.is(await table.locator('tbody tr').count(), 0);
      await page.unroute('**/items/cargos?**');
      await page.route('**/items/cargos?**', (route) => route.abort('connectionrefused'));
      await page.getByLabel('Search').fill('fish');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'The server could not be reached.' }).waitFor();
      await settled(page);
      assert.is(await table.locator('tbody tr').count(), 0);
      assert.is(await page.getByRole('button', { name: 'Log out' }).count(), 1, 'still logged in');

      // Back: the same search, asked again, answers.
      await page.unroute('**/items/cargos?**');
      await page.getByRole('button', { name: 'Try again' }).click();
      await settled(page);
      assert.is(await table.locator('tbody tr').count(), 1);
      assert.is(await page.getByRole('alert').count(), 0, 'the error is gone');
      await page.getByRole('button', { name: 'Count exactly' }).click();
      await page
        .locator('.count')
        .filter({ hasText: /^\s*1 row\s*$/ })
        .waitFor();
      watch.assertClean((problem) => /status of (400|503)|ERR_CONNECTION_REFUSED/.test(problem));
    }),
);

studio(
  'a condition starts on a value it shows: true for a boolean; changing its field clears what was typed',
  ({ app, admin }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      const filters: unknown[] = [];
      page.on('request', (request) => {
        const filter = new URL(request.url()).searchParams.get('filter');
        if (request.url().includes('/items/cargos?') && filter) filters.push(JSON.parse(filter));
      });
      await logInToStudio(page, app, admin);
      await page.getByRole('link', { name: 'cargos', exact: true }).click();
      await settled(page);
      await page.getByRole('button', { name: 'Add condition' }).click();
      await page.getByLabel('Field of condition 1').selectOption('is_deleted');
      const value = page.getByLabel('Value of condition 1');
      assert.equal(await value.locator('option').allTextContents(), ['true', 'false']);
      assert.is(await value.inputValue(), 'true');
      await page.getByRole('button', { name: 'Apply filter' }).click();
      await settled(page);
      const deleted = cargoRows.filter((row) => row.is_deleted === true);
      assert.is(await page.locator('tbody tr').count(), deleted.length);

      // Text typed for description does not follow into crate_count's number input, unseen.
      await page.getByLabel('Field of condition 1').selectOption('description');
      await value.fill('Bananas');
      await page.getByLabel('Field of condition 1').selectOption('crate_count');
      assert.is(await value.inputValue(), '');
      await value.fill('40');
      await page.getByRole('button', { name: 'Apply filter' }).click();
      await settled(page);
      assert.is(await page.locator('tbody tr').count(), 1);
      assert.equal(filters, [{ is_deleted: { _eq: true } }, { crate_count: { _eq: 40 } }]);
      watch.assertClean();
    }),
);

studio.run();
