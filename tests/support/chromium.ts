import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

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

/** A headless Chromium with a fresh profile for `body`; both go away after it, whatever happens. */
export async function withChromium<T>(
  body: (page: Page, browser: BrowserContext) => Promise<T>,
  viewport = { width: 1280, height: 800 },
): Promise<T> {
  const profile = await mkdtemp(join(tmpdir(), 'datagate-chromium-'));
  let browser: BrowserContext | undefined;
  try {
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport,
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(20_000);
    return await body(page, browser);
  } finally {
    await browser?.close();
    await rm(profile, { recursive: true, force: true });
  }
}
