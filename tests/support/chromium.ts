import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, which `make test` installs where it may (root with apt-get). */
export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser suites cannot run here, or undefined when they can: they then count as skipped. */
export const CHROMIUM_MISSING = existsSync(CHROMIUM)
  ? undefined
  : `Chromium is missing at ${CHROMIUM} (install it with apt-get install -y chromium)`;

/** The machine's network is closed: without these, Chromium keeps trying to reach Google's services. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * One Chromium per test process, launched on first use: a launch costs a second or more on a shared
 * 2-core box, a browser context a fraction of that. It closes once no test has used it for IDLE_MS, so
 * the process can end (an open browser holds it).
 */
let shared: Promise<Browser> | undefined;
let users = 0;
let idle: NodeJS.Timeout | undefined;
const IDLE_MS = 2_000;

async function sharedBrowser(): Promise<Browser> {
  clearTimeout(idle);
  users++;
  if (!shared) {
    const launching = chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    shared = launching;
    // A Chromium that crashed or was killed fails the test that had it; the next test launches another.
    void launching.then(
      (browser) =>
        browser.on('disconnected', () => {
          if (shared === launching) shared = undefined;
        }),
      () => {},
    );
  }
  try {
    return await shared;
  } catch (error) {
    shared = undefined;
    users--;
    throw error;
  }
}

function releaseBrowser() {
  if (--users > 0) return;
  idle = setTimeout(() => {
    const closing = shared;
    shared = undefined;
    // A browser already gone (crashed, or its launch failed) has nothing left to close.
    void closing?.then((browser) => browser.close()).catch(() => {});
  }, IDLE_MS);
}

/**
 * A fresh browser context for `body` (its own cookies, storage and cache, as a new profile would have),
 * in the process's shared headless Chromium; the context goes away after it, whatever happens.
 */
export async function withChromium<T>(
  body: (page: Page, context: BrowserContext) => Promise<T>,
  viewport = { width: 1280, height: 800 },
): Promise<T> {
  const browser = await sharedBrowser();
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    return await body(page, context);
  } finally {
    await context?.close();
    releaseBrowser();
  }
}
