// What every browser test shares: the server's address, where screenshots go, and one headless
// Debian Chromium per test file, launched before its tests and closed after them.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.BASE_URL;
const here = dirname(fileURLToPath(import.meta.url));
export const TARGET = process.env.CARGO_TARGET_DIR || resolve(here, '..', 'target');
export const SCREENSHOTS = process.env.SCREENSHOT_DIR || resolve(TARGET, 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

// This machine has no way out but package registries: keep Chromium from trying.
const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** A fresh Chromium; launch() gives every run an empty profile directory of its own. */
export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/** Registers this file's browser: launched before its tests (once BASE_URL is known to be
 *  set and the screenshots' folder exists), closed after them. */
export function useBrowser() {
  let browser;
  before(async () => {
    assert.ok(BASE_URL, 'set BASE_URL to the address of a running Last Seat server');
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });
  return { newContext: (options) => browser.newContext(options) };
}

/** Opens `path` on the server in a fresh context of `browser` (from `useBrowser`) with the cache
 *  off, and waits for `ready` and a quiet network: every response's bytes over the wire, by URL. */
export async function visitBytes(browser, path, { viewport = { width: 1280, height: 900 }, ready }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const sizes = new Map();
  const urls = new Map();
  cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url));
  cdp.on('Network.loadingFinished', (e) => sizes.set(e.requestId, e.encodedDataLength));
  await page.goto(new URL(path, BASE_URL).href, { waitUntil: 'load' });
  await page.locator(ready).first().waitFor({ timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  await context.close();
  return [...sizes].map(([id, bytes]) => ({ url: urls.get(id) || '', bytes }));
}
