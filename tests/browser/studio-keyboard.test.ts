import type { Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { cargoRows, cargosSchema } from '../support/cargos-schema.ts';
import { CHROMIUM_MISSING, withChromium } from '../support/chromium.ts';
import { seedRows } from '../support/seed-rows.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { seriousAccessibilityViolations, settled, waitUntil, watchPage } from '../support/studio-browser.ts';
import { type SeededUser, startTestApp, type TestApp } from '../support/test-app.ts';

type Context = { app: TestApp; admin: SeededUser };

const studio = skippableSuite<Context>(
  'the studio: the item table by keyboard alone, in headless Chromium',
  CHROMIUM_MISSING,
);

/** 60 more cargos, so that a filter leaves three pages of 25. */
const GENERATED = Array.from({ length: 60 }, (_, n) => ({
  id: `0190a1b3-0000-7000-8000-${String(n).padStart(12, '0')}`,
  description: `Cargo ${n}`,
  is_deleted: false,
  code: `GEN-${n}`,
  crate_count: n,
}));
const ROWS = [...cargoRows, ...GENERATED];

studio.before(async (context) => {
  const app = await startTestApp();
  (app.persistence.schema as InMemorySchema).registerCollection(cargosSchema);
  await seedRows(app.persistence, 'cargos', ROWS);
  context.app = app;
  context.admin = await app.seedAdmin();
});

studio.after(async ({ app }) => {
  await app?.close();
});

/**
 * The focused element as `tag name`: its aria-label, else its label's text, else its own text. Evaluated as
 * a string: these tests have no DOM types.
 */
async function focused(page: Page): Promise<string> {
  return (await page.evaluate(`(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return 'body';
    const label =
      element.getAttribute('aria-label') ??
      element.closest('label')?.firstChild?.textContent ??
      element.textContent ??
      '';
    return element.tagName.toLowerCase() + ' ' + label.trim();
  })()`)) as string;
}

/** Presses Tab (or Shift+Tab) until `target` has focus; answers what had focus on the way, in order. */
async function tabTo(page: Page, target: string, backwards = false): Promise<string[]> {
  const passed: string[] = [];
  for (let presses = 0; presses < 120; presses++) {
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    const now = await focused(page);
    passed.push(now);
    if (now === target) return passed;
  }
  assert.unreachable(`${target} never had focus; passed ${passed.join(' | ')}`);
  return passed;
}

/** Waits for focus to reach `target`: a screen moves it once it has rendered, a frame later. */
async function focusReaches(page: Page, target: string): Promise<void> {
  const deadline = Date.now() + 5000;
  let now = await focused(page);
  while (now !== target) {
    if (Date.now() > deadline) assert.unreachable(`focus is on ${now}, not ${target}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    now = await focused(page);
  }
}

const mainFocused = async (page: Page) =>
  (await page.evaluate(`document.activeElement?.id === 'main'`)) === true;

/** Whether the focused element is drawn with an outline (the sheet's :focus-visible). */
const outlined = (page: Page) =>
  page.evaluate(`getComputedStyle(document.activeElement).outlineStyle !== 'none'`);

studio('sorting, filtering, paging and opening a row with the keyboard only', ({ app, admin }) =>
  withChromium(async (page) => {
    const watch = watchPage(page, app);
    await page.goto(`${app.url}/studio/`);
    await page.getByLabel('E-mail').focus();
    await page.keyboard.type(admin.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(admin.password);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Log out' }).waitFor();

    await tabTo(page, 'a cargos');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor();
    await settled(page);
    // The link is gone with its screen: the new screen's <main> has the focus, not the page's top.
    await waitUntil(() => mainFocused(page), 'the table screen to take the focus');

    // From where the collection's link was, the tab order follows the screen: search, page size, filter,
    // count, the headers' sort buttons, the rows' links, the pager.
    const order = await tabTo(page, 'button Next page');
    const firstKey = cargoRows[0]!.id as string;
    const expected = [
      'a New item',
      'input Search',
      'button Search',
      'select Rows per page',
      'button Add condition',
      'button Apply filter',
      'button Count exactly',
      'button id',
      'button crate_count',
      `a ${firstKey}`,
      'button Next page',
    ];
    const at = expected.map((stop) => order.indexOf(stop));
    assert.ok(
      at.every((index, n) => index >= 0 && (n === 0 || index > at[n - 1]!)),
      `tab order: ${order.join(' | ')}`,
    );
    assert.is(order.filter((stop) => stop.startsWith('a 0190')).length, 25, 'every row link, once');

    // Sort by crate_count: Enter on its header's button.
    await tabTo(page, 'button crate_count', true);
    assert.ok(await outlined(page), 'a sort button shows its focus');
    await page.keyboard.press('Enter');
    await page.locator('th[aria-sort="ascending"]', { hasText: 'crate_count' }).waitFor();
    await settled(page);

    // Filter: crate_count at least 10. "Add condition" moves focus to the new condition's field.
    await tabTo(page, 'button Add condition', true);
    await page.keyboard.press('Enter');
    await focusReaches(page, 'select Field of condition 1');
    const filterable = cargosSchema.fields
      .filter((field) => field.type !== 'json')
      .map((field) => field.name);
    for (let step = 0; step < filterable.indexOf('crate_count'); step++)
      await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    assert.is(await focused(page), 'select Operator of condition 1');
    // equals, does not equal, less than, at most, greater than, at least.
    for (let step = 0; step < 5; step++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    assert.is(await focused(page), 'input Value of condition 1');
    await page.keyboard.type('10');
    const filtered = page.waitForRequest((request) => request.url().includes('filter='));
    await page.keyboard.press('Enter');
    const sent = new URL((await filtered).url());
    assert.equal(JSON.parse(sent.searchParams.get('filter') ?? ''), { crate_count: { _gte: 10 } });
    assert.is(sent.searchParams.get('sort'), 'crate_count');
    await settled(page);

    // Next page: focus moves to the table, whose caption names the page.
    await tabTo(page, 'button Next page');
    await page.keyboard.press('Enter');
    await waitUntil(
      async () => (await page.evaluate(`document.activeElement?.tagName === 'TABLE'`)) === true,
      'the focus on the table',
    );
    await settled(page);
    assert.is(await page.locator('table caption').textContent(), 'cargos, page 2');
    const matching = ROWS.filter((row) => typeof row.crate_count === 'number' && row.crate_count >= 10).sort(
      (a, b) =>
        (a.crate_count as number) - (b.crate_count as number) || String(a.id).localeCompare(String(b.id)),
    );
    const secondPage = matching.slice(25, 50).map((row) => row.id as string);
    assert.equal(
      (await page.locator('tbody tr td:first-child').allTextContents()).map((text) => text.trim()),
      secondPage,
    );
    assert.equal(await seriousAccessibilityViolations(page), [], 'table on page 2, focused');

    // Into the rows, down one with the arrow key, and open it with Enter.
    await tabTo(page, `a ${secondPage[0]}`);
    assert.ok(await outlined(page), 'a row link shows its focus');
    await page.keyboard.press('ArrowDown');
    assert.is(await focused(page), `a ${secondPage[1]}`);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${app.url}/studio/collections/cargos/${secondPage[1]}`);
    await waitUntil(() => mainFocused(page), 'the editor screen to take the focus');
    await page.keyboard.press('Tab');
    assert.is(await focused(page), 'a Back to cargos', 'Tab goes on inside the screen, not from the nav');
    await page.keyboard.press('Enter');
    await settled(page);
    await waitUntil(() => mainFocused(page), 'the table screen to take the focus back');

    watch.assertClean();
  }),
);

studio.run();
