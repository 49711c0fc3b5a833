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
