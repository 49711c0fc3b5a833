// Browser tests of the Last Seat page, in headless Chromium driven by playwright-core.
// Starts nothing itself: BASE_URL names a running server (scripts/test starts the real backend
// on a free port, serving the freshly built dist/). With EXPECT_POSTGRES=1 the health line must
// say that the real database is connected.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const BASE_URL = process.env.BASE_URL;
const EXPECT_POSTGRES = process.env.EXPECT_POSTGRES === '1';
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const here = dirname(fileURLToPath(import.meta.url));
const SCREENSHOTS = process.env.SCREENSHOT_DIR || resolve(here, '..', 'target', 'screenshots');

// This machine has no way out but package registries: keep Chromium from trying.
const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

let browser;

before(async () => {
  assert.ok(BASE_URL, 'set BASE_URL to the address of a running Last Seat server');
  mkdirSync(SCREENSHOTS, { recursive: true });
  // launch() gives every run a fresh, empty profile directory of its own.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
});

/** Opens the page at `viewport`, recording every console error and uncaught exception. */
async function open(viewport, { setup } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push({ text: message.text(), url: message.location().url });
  });
  page.on('pageerror', (error) => errors.push({ text: String(error), url: '' }));
  if (setup) await setup(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.locator('[data-testid="defences"] li').first().waitFor({ timeout: 20_000 });
  return { context, page, errors };
}

/** Console errors that count: on a static host (no EXPECT_POSTGRES) the missing /api/health is
 *  expected, and Chromium reports it; with the real server nothing may be reported at all. */
function unexpected(errors, { healthMayFail = !EXPECT_POSTGRES } = {}) {
  return errors.filter((e) => !(healthMayFail && e.url.endsWith('/api/health')));
}

/** The health line once it has stopped saying that it is looking. */
async function settledHealth(page) {
  const health = page.locator('[data-testid="health"]:not(.health-checking)');
  await health.waitFor({ timeout: 10_000 });
  return { text: (await health.innerText()).trim(), className: await health.getAttribute('class') };
}

test('the page shows its title and every defence with a summary, without console errors', async (t) => {
  const { context, page, errors } = await open({ width: 1280, height: 900 });
  try {
    assert.equal(await page.title(), 'Last Seat');
    assert.equal((await page.locator('h1').innerText()).trim(), 'Last Seat');
    assert.match(await page.locator('.lede').innerText(), /same seat in the same second/);

    const defences = await page.locator('[data-testid="defences"] li').evaluateAll((items) =>
      items.map((li) => ({
        title: li.querySelector('.defence-title')?.textContent.trim(),
        name: li.querySelector('.defence-name')?.textContent.trim(),
        summary: li.querySelector('.defence-summary')?.textContent.trim(),
      })));
    const names = defences.map((d) => d.name);
    assert.ok(defences.length >= 9, `expected the nine defences of the design at least, got ${names}`);
    for (const name of ['check_then_act', 'transaction', 'serializable', 'atomic_update', 'lock_row', 'unique_constraint']) {
      assert.ok(names.includes(name), `${name} is missing from ${names}`);
    }
    assert.equal(new Set(names).size, names.length, 'a defence is listed twice');
    for (const d of defences) {
      assert.match(d.name, /^[a-z_]+$/);
      assert.ok(d.title && d.summary, `defence ${d.name} lacks a title or a summary`);
    }

    const health = await settledHealth(page);
    t.diagnostic(`health line: ${health.text}`);
    if (EXPECT_POSTGRES) {
      assert.equal(health.text, 'Real PostgreSQL: connected.');
      assert.match(health.className, /health-ok/);
    }

    const firstRender = await page.evaluate(() =>
      performance.getEntriesByName('last-seat:first-render')[0]?.startTime);
    assert.ok(typeof firstRender === 'number', 'the app never marked its first render');
    t.diagnostic(`first render: ${firstRender.toFixed(0)} ms after navigation start`);

    await page.screenshot({ path: join(SCREENSHOTS, 'desktop.png'), fullPage: true });
    assert.deepEqual(unexpected(errors), [], 'the console reported errors');
  } finally {
    await context.close();
  }
});

test('the page fits a 375 px phone and keeps zoom enabled', async () => {
  const { context, page, errors } = await open({ width: 375, height: 812 });
  try {
    const viewportMeta = await page.locator('meta[name="viewport"]').getAttribute('content');
    assert.doesNotMatch(viewportMeta, /user-scalable\s*=\s*(no|0)|maximum-scale\s*=\s*1(\.0*)?\b/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
    await settledHealth(page);
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-375.png'), fullPage: true });
    assert.deepEqual(unexpected(errors), [], 'the console reported errors');
  } finally {
    await context.close();
  }
});

test('without a server the page still works and says that real runs need one', async () => {
  const noServer = async (page) => page.route('**/api/health', (route) => route.abort('connectionrefused'));
  const { context, page, errors } = await open({ width: 1280, height: 900 }, { setup: noServer });
  try {
    const health = await settledHealth(page);
    assert.match(health.text, /^Simulation only: .*needs the Last Seat server/);
    assert.ok((await page.locator('[data-testid="defences"] li').count()) >= 9);
    // The refused request itself is reported by Chromium; nothing else may be.
    assert.deepEqual(unexpected(errors, { healthMayFail: true }), [], 'the console reported errors');
  } finally {
    await context.close();
  }
});
