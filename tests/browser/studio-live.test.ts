import type { Page, WebSocket, WebSocketRoute } from 'playwright-core';
import * as assert from 'uvu/assert';
import { cargoRows } from '../support/cargos-schema.ts';
import { withChromium } from '../support/chromium.ts';
import {
  logInToStudio,
  OPERATOR_FIELDS,
  seriousAccessibilityViolations,
  settled,
  startStudioApp,
  studioSuite,
  waitUntil,
  watchPage,
} from '../support/studio-browser.ts';
import type { TestApp } from '../support/test-app.ts';

/** Ids sort as text: the seed's four come first, then these 26, so the first page of 25 has more after it. */
const generatedId = (n: number) => `0190a1b3-0000-7000-8000-${String(n).padStart(12, '0')}`;
const GENERATED = Array.from({ length: 26 }, (_, n) => ({
  id: generatedId(n),
  description: `Cargo ${n}`,
  is_deleted: false,
  code: `GEN-${n}`,
  crate_count: n,
  temperature: 5,
}));
/** Between the seed's last id and the generated ones: on the first page, fifth. */
const ON_FIRST_PAGE = '0190a1b2-0000-7000-8000-00000000000f';
/** After every seeded id: past the first page's last row. */
const PAST_FIRST_PAGE = '0190a1b4-0000-7000-8000-000000000001';

const studio = studioSuite(
  'the studio: the open table follows changes made by others, in headless Chromium',
  [...cargoRows, ...GENERATED],
);

/** Writes as another client would: over HTTP with the admin's own token, not through the page. */
async function write(app: TestApp, token: string, method: string, path: string, body?: unknown) {
  const response = await app.request(method, path, { token, body });
  assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
}

/** Opens cargos from the collections screen and waits until the table is loaded and live. */
async function openCargos(page: Page) {
  await page.getByRole('link', { name: 'cargos', exact: true }).click();
  await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor();
  await settled(page);
}

async function until(condition: () => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.unreachable(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const rowsOf = (page: Page) => page.getByRole('table').locator('tbody tr');
const idsOf = async (page: Page) =>
  (await rowsOf(page).locator('td:first-child').allTextContents()).map((text) => text.trim());

studio(
  'an admin sees creates, updates and deletes by another client without reloading',
  ({ app, admin, adminToken: token }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      const lists: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/items/cargos') lists.push(request.url());
      });
      await logInToStudio(page, app, admin);
      await openCargos(page);
      assert.is(lists.length, 1, 'the subscription starts on the page loaded: no second load');
      assert.is(await rowsOf(page).count(), 25);
      assert.equal(await seriousAccessibilityViolations(page), [], 'live table');
      // A reload would lose this (and the session with it).
      await page.evaluate('window.stillTheSamePage = true');

      await write(app, token, 'POST', '/items/cargos', {
        id: ON_FIRST_PAGE,
        description: 'Live cargo',
        code: 'LIVE-1',
        crate_count: 7,
      });
      const created = rowsOf(page).filter({ hasText: 'Live cargo' });
      await created.waitFor();
      const ids = await idsOf(page);
      assert.is(ids.indexOf(ON_FIRST_PAGE), 4, 'in key order, after the seed’s four');
      assert.is(ids.length, 26, 'the page grows rather than push a row past the next cursor');

      // A row that sorts past this page's last is left to the next page; the update after it shows it was seen.
      await write(app, token, 'POST', '/items/cargos', { id: PAST_FIRST_PAGE, description: 'Far cargo' });
      await write(app, token, 'PATCH', `/items/cargos/${ON_FIRST_PAGE}`, {
        description: 'Live cargo, updated',
      });
      await rowsOf(page).filter({ hasText: 'Live cargo, updated' }).waitFor();
      assert.is(await rowsOf(page).filter({ hasText: 'Far cargo' }).count(), 0);
      assert.is(await rowsOf(page).count(), 26);

      await write(app, token, 'DELETE', `/items/cargos/${ON_FIRST_PAGE}`);
      await created.waitFor({ state: 'detached' });
      assert.is(await rowsOf(page).count(), 25);
      assert.is(await page.evaluate('window.stillTheSamePage'), true);
      assert.is(lists.length, 1, 'changes are applied to the page, not fetched again');

      // On another page nothing moves: the changes are counted, and loading the page again shows them.
      const turned = page.waitForResponse((response) => response.url().includes('after='));
      await page.getByRole('button', { name: 'Next page' }).click();
      await turned;
      await settled(page);
      const secondPage = await idsOf(page);
      await write(app, token, 'POST', '/items/cargos', { id: generatedId(99), description: 'Late cargo' });
      const reload = page.getByRole('button', { name: '1 change — reload' });
      await reload.waitFor();
      assert.equal(await idsOf(page), secondPage);
      assert.match((await page.getByRole('status').textContent()) ?? '', /this page has changed/);
      const reloaded = page.waitForResponse((response) => response.url().includes('after='));
      await reload.click();
      await reload.waitFor({ state: 'detached' });
      await reloaded;
      await settled(page);
      assert.ok((await idsOf(page)).includes(generatedId(99)));

      await write(app, token, 'DELETE', `/items/cargos/${PAST_FIRST_PAGE}`);
      await write(app, token, 'DELETE', `/items/cargos/${generatedId(99)}`);
      watch.assertClean();
    }),
);

studio(
  'an operator is never sent a field or a row its role hides, not even over the socket',
  ({ app, operator, adminToken: token }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      const frames: string[] = [];
      page.on('websocket', (socket) => {
        socket.on('framereceived', ({ payload }) => frames.push(String(payload)));
      });
      await logInToStudio(page, app, operator);
      await openCargos(page);

      const visible = GENERATED[0]!.id;
      await write(app, token, 'POST', '/items/cargos', {
        id: PAST_FIRST_PAGE,
        description: 'Deleted cargo',
        is_deleted: true,
        temperature: 99.25,
      });
      await write(app, token, 'PATCH', `/items/cargos/${visible}`, {
        description: 'Warmer cargo',
        temperature: 21.5,
      });
      await rowsOf(page).filter({ hasText: 'Warmer cargo' }).waitFor();
      // An update that takes a row out of the operator's view arrives as a delete.
      await write(app, token, 'PATCH', `/items/cargos/${visible}`, { is_deleted: true });
      await rowsOf(page).filter({ hasText: 'Warmer cargo' }).waitFor({ state: 'detached' });

      const headers = (await page.getByRole('columnheader').allTextContents()).map((text) => text.trim());
      assert.equal(headers, OPERATOR_FIELDS);
      assert.not.match(await page.content(), /Deleted cargo|21\.5|99\.25/);
      const events = frames.map(
        (frame) => JSON.parse(frame) as { type: string; event?: string; data?: unknown },
      );
      const changes = events.filter((message) => message.type === 'subscription' && message.event !== 'init');
      assert.equal(
        changes.map((message) => message.event),
        ['update', 'delete'],
        'the hidden row is never sent',
      );
      for (const message of events.filter(
        (event) => event.type === 'subscription' && event.event !== 'delete',
      )) {
        for (const row of message.data as Record<string, unknown>[]) {
          assert.equal(Object.keys(row).sort(), [...OPERATOR_FIELDS].sort());
        }
      }
      assert.not.match(frames.join('\n'), /temperature|Deleted cargo/);

      await write(app, token, 'PATCH', `/items/cargos/${visible}`, {
        is_deleted: false,
        description: 'Cargo 0',
      });
      await write(app, token, 'DELETE', `/items/cargos/${PAST_FIRST_PAGE}`);
      watch.assertClean();
    }),
);

studio('one connection per open table: closed on leaving the table and on logging out', ({ app, admin }) =>
  withChromium(async (page) => {
    const watch = watchPage(page, app);
    const sockets: WebSocket[] = [];
    page.on('websocket', (socket) => sockets.push(socket));
    const open = () => sockets.filter((socket) => !socket.isClosed()).length;
    await logInToStudio(page, app, admin);
    await openCargos(page);
    assert.is(sockets.length, 1);
    assert.is(new URL(sockets[0]!.url()).pathname, '/websocket');
    assert.not.match(sockets[0]!.url(), /token/, 'the token goes in a message, never in the URL');

    await page.getByRole('link', { name: 'Collections' }).click();
    await until(() => sockets[0]!.isClosed(), 'the socket to close on leaving the table');
    await openCargos(page);
    assert.is(sockets.length, 2);
    assert.is(open(), 1);

    await page.getByRole('button', { name: 'Log out' }).click();
    await until(() => sockets[1]!.isClosed(), 'the socket to close on logging out');
    assert.is(open(), 0);
    watch.assertClean();
  }),
);

studio(
  'a lost connection is reopened, and the first page catches up with what it missed',
  ({ app, admin, adminToken: token }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      // The page's socket goes through this route to the server, so the test can cut it as a network would.
      let refuse = false;
      let current: WebSocketRoute | null = null;
      await page.routeWebSocket(/\/websocket$/, (socket) => {
        if (refuse) {
          socket.close({ code: 1013, reason: 'Try again later' });
          return;
        }
        socket.connectToServer();
        current = socket;
      });
      await logInToStudio(page, app, admin);
      await openCargos(page);

      refuse = true;
      await (current as WebSocketRoute | null)?.close({ code: 1012, reason: 'Cut by the test' });
      await page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor();
      await write(app, token, 'POST', '/items/cargos', { id: ON_FIRST_PAGE, description: 'Missed cargo' });

      const caughtUp = page.waitForRequest((request) => new URL(request.url()).pathname === '/items/cargos');
      refuse = false;
      await page
        .getByRole('status')
        .filter({ hasText: /^Live$/ })
        .waitFor();
      await caughtUp;
      await rowsOf(page).filter({ hasText: 'Missed cargo' }).waitFor();

      await write(app, token, 'DELETE', `/items/cargos/${ON_FIRST_PAGE}`);
      await rowsOf(page).filter({ hasText: 'Missed cargo' }).waitFor({ state: 'detached' });
      watch.assertClean();
    }),
);

studio(
  'a connection gone silent (no close, as a dropped network) is pinged, given up and replaced; the page catches up',
  ({ app, admin, adminToken: token }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      // Every socket goes through the test, which forwards both ways until it lets the first one go silent:
      // nothing passes any more, and neither side learns of a close.
      const routes: WebSocketRoute[] = [];
      let silent: WebSocketRoute | null = null;
      const unanswered: string[] = [];
      const closedByPage: number[] = [];
      await page.routeWebSocket(/\/websocket$/, (socket) => {
        const server = socket.connectToServer();
        routes.push(socket);
        socket.onMessage((message) => {
          if (socket === silent) unanswered.push(String(message));
          else server.send(message);
        });
        server.onMessage((message) => {
          if (socket !== silent) socket.send(message);
        });
        socket.onClose((code) => {
          if (socket === routes[0]) closedByPage.push(code ?? 0);
          server.close();
        });
        server.onClose((code, reason) => {
          if (socket !== silent) void socket.close({ code, reason });
        });
      });
      const pongs: string[] = [];
      page.on('websocket', (socket) => {
        socket.on('framereceived', ({ payload }) => {
          if (String(payload).includes('"pong"')) pongs.push(String(payload));
        });
      });
      await page.clock.install();
      await logInToStudio(page, app, admin);
      await openCargos(page);
      const status = page.getByRole('status');

      // A quiet connection that answers is kept: the page asks after 35 s of silence, the server answers.
      await page.clock.runFor(36_000);
      await until(() => pongs.length === 1, 'the answer to the page’s ping');
      await page.clock.runFor(20_000);
      assert.is(routes.length, 1, 'a connection that answers is kept');
      assert.match((await status.textContent()) ?? '', /^Live$/);

      silent = routes[0]!;
      await write(app, token, 'POST', '/items/cargos', { id: ON_FIRST_PAGE, description: 'Unheard cargo' });
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.is(await rowsOf(page).filter({ hasText: 'Unheard cargo' }).count(), 0, 'the change is lost');
      const caughtUp = page.waitForRequest((request) => new URL(request.url()).pathname === '/items/cargos');
      // 35 s after the answer, a ping; 10 s without an answer: given up, and a new connection after the
      // backoff's first wait (0.5 s, jittered).
      await page.clock.runFor(15_000);
      await until(() => unanswered.length === 1, 'a ping on the silent connection');
      assert.equal(JSON.parse(unanswered[0]!), { type: 'ping' });
      assert.is(routes.length, 1, 'not given up before the answer is late');
      await page.clock.runFor(10_000);
      await until(() => closedByPage.length === 1, 'the page to close the silent connection');
      assert.equal(closedByPage, [1000]);
      await page.clock.runFor(1_000);
      await status.filter({ hasText: /^Live$/ }).waitFor();
      assert.is(routes.length, 2);
      await caughtUp;
      await rowsOf(page).filter({ hasText: 'Unheard cargo' }).waitFor();

      // The new connection is live.
      await write(app, token, 'DELETE', `/items/cargos/${ON_FIRST_PAGE}`);
      await rowsOf(page).filter({ hasText: 'Unheard cargo' }).waitFor({ state: 'detached' });
      watch.assertClean();
    }),
);

studio(
  'x-realtime is read again on reconnecting and on Reload: a server turning realtime off, then on, is followed',
  ({ app, admin, adminToken: token }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      // The document the page reads says what the test wants of realtime, as a restarted server would.
      let realtime = true;
      let documents = 0;
      await page.route('**/server/specs/oas', async (route) => {
        documents += 1;
        const answer = await route.fetch();
        const document = (await answer.json()) as { info: Record<string, unknown> };
        document.info['x-realtime'] = realtime;
        await route.fulfill({ response: answer, json: document });
      });
      let current: WebSocketRoute | null = null;
      let connections = 0;
      await page.routeWebSocket(/\/websocket$/, (socket) => {
        connections += 1;
        socket.connectToServer();
        current = socket;
      });
      await logInToStudio(page, app, admin);
      await openCargos(page);
      assert.is(documents, 1, 'the table trusts the reading of the login');

      realtime = false;
      const reloaded = page.waitForRequest((request) => new URL(request.url()).pathname === '/items/cargos');
      await write(app, token, 'POST', '/items/cargos', { id: ON_FIRST_PAGE, description: 'Missed cargo' });
      await (current as WebSocketRoute | null)?.close({ code: 1012, reason: 'Restarting' });
      const status = page.getByRole('status');
      await status.filter({ hasText: /^Not live$/ }).waitFor();
      assert.is(documents, 2, 'read again once the reconnection reached the server');
      assert.is(connections, 2);
      await reloaded;
      await rowsOf(page).filter({ hasText: 'Missed cargo' }).waitFor();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.is(connections, 2, 'no connection while the server sends no changes');
      assert.equal(await seriousAccessibilityViolations(page), [], 'table no longer live');

      realtime = true;
      await page.getByRole('button', { name: 'Reload', exact: true }).click();
      await status.filter({ hasText: /^Live$/ }).waitFor();
      assert.is(documents, 3);
      assert.is(connections, 3);
      await write(app, token, 'DELETE', `/items/cargos/${ON_FIRST_PAGE}`);
      await rowsOf(page).filter({ hasText: 'Missed cargo' }).waitFor({ state: 'detached' });
      watch.assertClean();
    }),
);

studio('an expired token ends the subscription; the table renews it and goes on', ({ app, admin }) =>
  withChromium(async (page) => {
    const watch = watchPage(page, app);
    const tokensSent: string[] = [];
    page.on('websocket', (socket) => {
      socket.on('framesent', ({ payload }) => {
        const message = JSON.parse(String(payload)) as { type: string; access_token?: string };
        if (message.type === 'auth' && message.access_token) tokensSent.push(message.access_token);
      });
    });
    await logInToStudio(page, app, admin);
    await openCargos(page);
    assert.is(tokensSent.length, 1);

    // The server's clock passes the access token's 15 minutes: its subscription ends within a second.
    app.clock.advance(16 * 60_000);
    await until(() => tokensSent.length >= 2, 'a second auth message');
    await page
      .getByRole('status')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    assert.is.not(tokensSent[1], tokensSent[0], 'a renewed token');

    const { access_token: fresh } = await app.login(admin);
    await write(app, fresh, 'PATCH', `/items/cargos/${GENERATED[1]!.id}`, { description: 'After renewal' });
    await rowsOf(page).filter({ hasText: 'After renewal' }).waitFor();
    await write(app, fresh, 'PATCH', `/items/cargos/${GENERATED[1]!.id}`, { description: 'Cargo 1' });
    watch.assertClean();
  }),
);

studio(
  'an exact count asked for before a new search is followed holds once it is, and follows its changes',
  ({ app, admin }) =>
    withChromium(async (page) => {
      // A token of its own: an earlier case moved the server's clock past the suite's token's expiry.
      const { access_token: token } = await app.login(admin);
      const watch = watchPage(page, app);
      // The server's messages pass through here, so the test can hold back the new subscription's answer.
      let holding = false;
      const held: Array<string | Buffer> = [];
      let toPage: WebSocketRoute | null = null;
      await page.routeWebSocket(/\/websocket$/, (socket) => {
        const server = socket.connectToServer();
        toPage = socket;
        socket.onMessage((message) => server.send(message));
        server.onMessage((message) => {
          if (holding) held.push(message);
          else socket.send(message);
        });
      });
      await logInToStudio(page, app, admin);
      await openCargos(page);

      holding = true;
      await page.getByLabel('Search').fill('Cargo 2');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await settled(page);
      await until(() => held.some((message) => String(message).includes('"event":"init"')), 'its init');
      await page.getByRole('button', { name: 'Count exactly' }).click();
      const count = page.locator('.count');
      await count.filter({ hasText: /^\s*\d+ rows?\s*$/ }).waitFor();
      const exact = Number.parseInt(await count.innerText(), 10);

      // The subscription's init, the same rows as the page, arrives after the count: the count holds, and a
      // create after it adds one to it.
      holding = false;
      for (const message of held.splice(0)) (toPage as WebSocketRoute | null)?.send(message);
      await write(app, token, 'POST', '/items/cargos', { id: ON_FIRST_PAGE, description: 'Cargo 2, late' });
      await rowsOf(page).filter({ hasText: 'Cargo 2, late' }).waitFor();
      assert.is((await count.innerText()).trim(), `${exact + 1} rows`);
      watch.assertClean();
    }),
);

studio('with realtime off on the server, the table claims nothing live and opens no connection', () =>
  withChromium(async (page) => {
    const { app, admin, adminToken: token } = await startStudioApp(cargoRows, { REALTIME_ENABLED: 'false' });
    try {
      const watch = watchPage(page, app);
      const sockets: string[] = [];
      page.on('websocket', (socket) => sockets.push(socket.url()));
      await page.clock.install();
      await logInToStudio(page, app, admin);
      await page.getByRole('link', { name: 'cargos', exact: true }).click();
      await settled(page);
      const status = page.getByRole('status');
      await status.filter({ hasText: /^Not live$/ }).waitFor();
      // Ten minutes of the page's time: any retry, however far its backoff, would have come.
      await page.clock.runFor(10 * 60_000);
      assert.is(await status.textContent(), 'Not live');
      assert.not.match((await page.locator('.live').textContent()) ?? '', /Live|Reconnecting/);
      assert.equal(await seriousAccessibilityViolations(page), [], 'table not live');

      // What another client writes shows when the page is loaded again, which the table offers.
      await write(app, token, 'POST', '/items/cargos', { id: ON_FIRST_PAGE, description: 'Unseen cargo' });
      const reloaded = page.waitForResponse(
        (response) => new URL(response.url()).pathname === '/items/cargos',
      );
      await page.getByRole('button', { name: 'Reload', exact: true }).click();
      await reloaded;
      await rowsOf(page).filter({ hasText: 'Unseen cargo' }).waitFor();
      assert.equal(sockets, [], 'no connection to /websocket, not even one');
      watch.assertClean();
    } finally {
      await app.close();
    }
  }),
);

studio(
  'a table whose connection never works gives up after its backoff, claiming nothing; Reload tries again',
  ({ app, admin }) =>
    withChromium(async (page) => {
      const watch = watchPage(page, app);
      // As a proxy that does not pass WebSockets on: every connection is ended before anything is said.
      let refuse = true;
      let attempts = 0;
      await page.routeWebSocket(/\/websocket$/, (socket) => {
        attempts += 1;
        if (refuse) socket.close({ code: 1011, reason: 'No WebSockets here' });
        else socket.connectToServer();
      });
      await page.clock.install();
      await logInToStudio(page, app, admin);
      await page.getByRole('link', { name: 'cargos', exact: true }).click();
      await settled(page);
      const status = page.getByRole('status');
      const said = new Set<string>();
      // Each step runs the page's clock past the longest wait (30 s, jittered up to 37.5 s).
      await waitUntil(async () => {
        await page.clock.runFor(40_000);
        const text = (await status.textContent()) ?? '';
        said.add(text);
        return text === 'Not live';
      }, 'the table to give up connecting');
      assert.is(attempts, 7, 'the first connection and one per wait of the backoff');
      assert.equal(
        [...said].filter((text) => /Live|Reconnecting/.test(text)),
        [],
        'never said to be live',
      );

      await page.clock.runFor(10 * 60_000);
      // Time for a connection the page would have opened to reach the route.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.is(attempts, 7, 'no more attempts once given up');

      refuse = false;
      await page.getByRole('button', { name: 'Reload', exact: true }).click();
      await status.filter({ hasText: /^Live$/ }).waitFor();
      assert.is(attempts, 8);
      watch.assertClean();
    }),
);

studio.run();
