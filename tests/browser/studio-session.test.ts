import type { Page, Route } from 'playwright-core';
import * as assert from 'uvu/assert';
import { withChromium } from '../support/chromium.ts';
import {
  logInToStudio,
  seriousAccessibilityViolations,
  settled,
  studioSuite,
  watchPage,
} from '../support/studio-browser.ts';
import type { TestApp } from '../support/test-app.ts';

const studio = studioSuite('the studio: a session kept across reloads of its tab, in headless Chromium');

type Pair = { access_token: string; refresh_token: string };

/** Logs in through the form, answering the pair the studio was given. */
async function logInFor(page: Page, app: TestApp, user: { email: string; password: string }) {
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/auth/login');
  await logInToStudio(page, app, user);
  return (await (await answered).json()) as Pair;
}

/** The refresh tokens the page sends to `/auth/refresh`, in order. */
function refreshesOf(page: Page): string[] {
  const sent: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/auth/refresh') {
      sent.push((JSON.parse(request.postData() ?? '{}') as { refresh_token: string }).refresh_token);
    }
  });
  return sent;
}

const storageOf = (page: Page) =>
  page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]') as Promise<unknown>;

studio(
  'a reload keeps the session on the screen it showed; an open page stores nothing, another tab has no session',
  ({ app, admin }) =>
    withChromium(async (page, browser) => {
      const watch = watchPage(page, app);
      const refreshes = refreshesOf(page);
      const pair = await logInFor(page, app, admin);
      await page.getByRole('link', { name: 'cargos', exact: true }).click();
      await settled(page);
      assert.equal(await storageOf(page), [0, 0, ''], 'nothing in storage while the page is open');

      const renewal = page.waitForResponse((response) => response.url().endsWith('/auth/refresh'));
      await page.reload();
      await page.getByRole('columnheader', { name: 'temperature' }).waitFor();
      await settled(page);
      assert.is(await page.getByLabel('Password').count(), 0, 'no login form');
      assert.equal(refreshes, [pair.refresh_token], 'the refresh token the last page held, once');
      assert.equal(await storageOf(page), [0, 0, ''], 'taken out again once read');
      await page.getByRole('button', { name: 'Log out' }).waitFor();
      assert.equal(await seriousAccessibilityViolations(page), [], 'the table after a reload');

      // Left for a page of the same origin that is not the studio: the refresh token is what waits, alone.
      const renewed = (await (await renewal).json()) as Pair;
      await page.goto(`${app.url}/server/ping`);
      assert.equal(await page.evaluate('Object.values(sessionStorage)'), [renewed.refresh_token]);
      await page.goBack();
      await page.getByRole('columnheader', { name: 'temperature' }).waitFor();
      assert.equal(await storageOf(page), [0, 0, '']);

      // sessionStorage is the tab's: a new tab of the same browser asks for the password.
      const other = await browser.newPage();
      await other.goto(`${app.url}/studio/`);
      await other.getByLabel('E-mail').waitFor();
      await other.close();
      await page.getByRole('button', { name: 'Log out' }).waitFor();
      // The ping page has no icon: the browser's request for /favicon.ico is a 404.
      watch.assertClean((problem) => /404 \(Not Found\)/.test(problem));
    }),
);

studio(
  'logging out ends the session: a reload then shows the login, and its token is dead',
  ({ app, admin }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      const refreshes = refreshesOf(page);
      const pair = await logInFor(page, app, admin);
      const loggedOut = page.waitForResponse((response) => response.url().endsWith('/auth/logout'));
      await page.getByRole('button', { name: 'Log out' }).click();
      assert.is((await loggedOut).status(), 204);
      await page.getByLabel('E-mail').waitFor();

      await page.reload();
      await page.getByLabel('E-mail').waitFor();
      assert.equal(refreshes, [], 'nothing was left to take up');
      assert.equal(await storageOf(page), [0, 0, '']);
      const refused = await app.request('POST', '/auth/refresh', {
        body: { refresh_token: pair.refresh_token },
      });
      assert.is(refused.status, 401);
      watch.assertClean();
    }),
);

studio(
  "what the last user may do, answered after they logged out, is not taken for the next user's",
  ({ app, admin, operator }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      // The admin's document of what they may do is slow to come: the admin logs out meanwhile.
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let first = true;
      await page.route('**/server/specs/oas', async (route) => {
        if (!first) return route.continue();
        first = false;
        const answer = await route.fetch();
        await released;
        await route.fulfill({ response: answer }).catch(() => {});
      });
      await logInToStudio(page, app, admin);
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByLabel('E-mail').waitFor();

      await page.getByLabel('E-mail').fill(operator.email);
      await page.getByLabel('Password').fill(operator.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByText('cargos · 5 fields').waitFor();
      const adminsCame = page.waitForResponse((response) => response.url().endsWith('/server/specs/oas'));
      release();
      await adminsCame;
      // Neither the admin's collections and links, nor "Loading…" again: the operator's screen stays.
      await page.getByRole('link', { name: 'cargos', exact: true }).click();
      await page.getByRole('columnheader', { name: 'crate_count' }).waitFor();
      await settled(page);
      assert.is(await page.getByRole('columnheader', { name: 'temperature' }).count(), 0, 'no admin column');
      assert.is(await page.getByRole('link', { name: 'Users' }).count(), 0, 'no admin link');
      watch.assertClean();
    }),
);

studio(
  'a session ended elsewhere is not taken up: the reload shows the login and says why',
  ({ app, admin }) =>
    withChromium(async (page) => {
      // The refused refresh is a 401 the browser reports on the console.
      const watch = watchPage(page, app);
      const pair = await logInFor(page, app, admin);
      const ended = await app.request('POST', '/auth/logout', {
        body: { refresh_token: pair.refresh_token },
      });
      assert.is(ended.status, 204);

      const refused = page.waitForResponse((response) => response.url().endsWith('/auth/refresh'));
      await page.reload();
      assert.is((await refused).status(), 401);
      await page.getByRole('status').filter({ hasText: 'Your session has ended' }).waitFor();
      await page.getByLabel('E-mail').waitFor();
      assert.equal(await storageOf(page), [0, 0, ''], 'the refused token is gone');
      watch.assertClean((problem) => /401 \(Unauthorized\)/.test(problem));
    }),
);

studio(
  'what the user may do, when the server is busy right after the login, is asked for again from "Try again"',
  ({ app, admin }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      let busy = true;
      await page.route('**/server/specs/oas', (route) =>
        busy
          ? route.fulfill({
              status: 429,
              contentType: 'application/json',
              headers: { 'Retry-After': '1' },
              body: JSON.stringify({
                errors: [
                  {
                    message: 'Too many requests at once from this caller. Try again shortly.',
                    extensions: { code: 'TOO_MANY_REQUESTS' },
                  },
                ],
              }),
            })
          : route.continue(),
      );
      await logInFor(page, app, admin);
      await page.getByRole('alert').filter({ hasText: 'TOO_MANY_REQUESTS' }).waitFor();
      assert.equal(await seriousAccessibilityViolations(page), [], 'the error and its button');
      busy = false;
      await page.getByRole('button', { name: 'Try again' }).click();
      await page.getByRole('link', { name: 'cargos', exact: true }).waitFor();
      assert.is(await page.getByRole('alert').count(), 0);
      watch.assertClean((problem) => /status of 429/.test(problem));
    }),
);

studio(
  'a renewal the server cannot answer (503, out of reach) keeps the session: the request says why, and a later one works',
  ({ app, admin }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      await logInFor(page, app, admin);
      await page.getByRole('link', { name: 'cargos', exact: true }).click();
      await settled(page);
      // The access token is refused once, as an expired one is, and the renewal then meets a busy server,
      // then none: neither says anything of the session, which used to end there, unsaved edits and all.
      for (const [refresh, says] of [
        [
          (route: Route) =>
            route.fulfill({
              status: 503,
              contentType: 'application/json',
              body: JSON.stringify({
                errors: [{ message: 'The database is busy.', extensions: { code: 'SERVICE_BUSY' } }],
              }),
            }),
          'The database is busy. (SERVICE_BUSY)',
        ],
        [(route: Route) => route.abort('connectionrefused'), 'The server could not be reached.'],
      ] as const) {
        let refusedOnce = false;
        await page.route('**/items/cargos?**', (route) => {
          if (refusedOnce) return route.continue();
          refusedOnce = true;
          return route.fulfill({
            status: 401,
            contentType: 'application/json',
            body: JSON.stringify({
              errors: [{ message: 'Token expired.', extensions: { code: 'TOKEN_EXPIRED' } }],
            }),
          });
        });
        await page.route('**/auth/refresh', refresh);
        await page.getByLabel('Search').fill(says);
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.getByRole('alert').filter({ hasText: says }).waitFor();
        assert.is(await page.getByRole('button', { name: 'Log out' }).count(), 1, `still logged in: ${says}`);
        await page.unroute('**/auth/refresh');
        await page.unroute('**/items/cargos?**');
      }
      await page.getByLabel('Search').fill('');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await settled(page);
      assert.is(await page.getByRole('alert').count(), 0);
      assert.ok((await page.locator('tbody tr').count()) > 0, 'the rows, with the same session');
      watch.assertClean((problem) => /status of (401|503)|ERR_CONNECTION_REFUSED/.test(problem));
    }),
);

studio(
  'reloading again while the session is being taken up does not burn it: the rotation’s grace answers the same pair',
  ({ app, admin }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      const refreshes = refreshesOf(page);
      const pair = await logInFor(page, app, admin);

      // The first reload's refresh reaches the server, which rotates the token, but its answer never reaches
      // the page: the page is reloaded again first.
      let held: (route: Route, answer: Pair) => void = () => {};
      const reachedServer = new Promise<[Route, Pair]>((resolve) => {
        held = (route, answer) => resolve([route, answer]);
      });
      let first = true;
      await page.route('**/auth/refresh', async (route) => {
        if (!first) return route.continue();
        first = false;
        const answer = await route.fetch();
        held(route, (await answer.json()) as Pair);
      });
      await page.reload();
      const [route, rotated] = await reachedServer;
      const second = page.waitForResponse((response) => response.url().endsWith('/auth/refresh'));
      const reloaded = page.reload();
      const replayed = (await (await second).json()) as Pair;
      // The first answer is dropped with the page that asked for it, as a browser cancels a page's requests.
      await route.abort().catch(() => {});
      await reloaded;
      assert.equal(refreshes, [pair.refresh_token, pair.refresh_token], 'the same token, both times');
      assert.is(replayed.refresh_token, rotated.refresh_token, 'the same successor, not a branch');
      assert.is(replayed.access_token, rotated.access_token);
      await page.getByRole('button', { name: 'Log out' }).waitFor();

      // Past the grace, the session goes on with the successor: nothing revoked it.
      app.clock.advance(11_000);
      await page.reload();
      await page.getByRole('button', { name: 'Log out' }).waitFor();
      assert.equal(refreshes.slice(2), [rotated.refresh_token]);
      await page.getByRole('link', { name: 'cargos', exact: true }).click();
      await settled(page);
      watch.assertClean();
    }),
);

studio.run();
