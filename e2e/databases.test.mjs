// The database switch, in headless Chromium against the real server (BASE_URL): chapter 4's
// repeatable-read defence on PostgreSQL and on InnoDB, the same order side by side with the step
// where they part, the real run on MariaDB, a link that keeps the database, the claim table on
// the home page, and the new views at 1280 and 375 px, axe clean. With EXPECT_MARIADB=1 the
// real run on MariaDB must be available and agree with the model. A first visit gets the bundle
// without InnoDB's model; asking for InnoDB loads the one with it (`/innodb-page/`), the lab's
// state kept on the way.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, useBrowser } from './browser.mjs';

const EXPECT_MARIADB = process.env.EXPECT_MARIADB === '1';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const browser = useBrowser();

async function open(path, viewport = { width: 1280, height: 900 }, ready = '[data-testid="timeline"]') {
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(new URL(path, BASE_URL).href, { waitUntil: 'load' });
  await page.locator(ready).first().waitFor({ timeout: 20_000 });
  return { context, page, errors };
}

async function axe(page) {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const pressed = (page, id) => page.locator(`[data-testid="database-${id}"]`).getAttribute('aria-pressed');

/** Chooses InnoDB: from the first bundle this loads the page with InnoDB's model, which switches
 *  the lab on arrival; done once its button shows pressed. */
async function chooseInnodb(page) {
  await page.locator('[data-testid="database-innodb"]').click();
  await page.locator('[data-testid="database-innodb"][aria-pressed="true"]').waitFor({ timeout: 30_000 });
}

/** Whether any part of the element is on screen. */
const onScreen = (locator) => locator.evaluate((e) => {
  const r = e.getBoundingClientRect();
  return r.top < window.innerHeight && r.bottom > 0;
});

/** Whether the page running now is the bundle with InnoDB's model. */
const withInnodb = (page) => page.evaluate(() =>
  [...document.querySelectorAll('script[src], link[href]')].some((e) => (e.src || e.href).includes('/innodb-page/'))
  || performance.getEntriesByType('resource').some((r) => r.name.includes('/innodb-page/')));
const verdict = async (page) => (await page.locator('[data-testid="verdict"]').innerText()).trim();

/** Chapter 4 with the repeatable-read defence, played to its end. */
async function repeatableRead(page) {
  await page.locator('[data-testid="defence"]').selectOption({ label: 'Repeatable read' });
  await page.locator('[data-testid="to-end"]').click();
}

test('chapter 4: repeatable read refuses the second writer on PostgreSQL and sells twice on InnoDB, side by side', async () => {
  const { context, page, errors } = await open('/chapter/4');
  try {
    assert.equal(await pressed(page, 'postgresql'), 'true');
    await repeatableRead(page);
    const onPostgres = await verdict(page);
    assert.doesNotMatch(onPostgres, /double|twice/i, onPostgres);
    assert.equal(await withInnodb(page), false, 'a first visit carries no InnoDB model');
    const before = new URL(page.url());
    await chooseInnodb(page);
    assert.equal(await withInnodb(page), true, 'the switch loaded the bundle with InnoDB');
    assert.ok(await onScreen(page.locator('[data-testid="database-switch"]')), 'the reader is where they were: at the switch');
    assert.match(await page.locator('[data-testid="notice"]').innerText(), /Now on MySQL\/InnoDB: the same order, the same step/);
    assert.equal(await page.locator('[data-testid="defence"]').evaluate((e) => e.selectedOptions[0].label), 'Repeatable read');
    const after = new URL(page.url());
    assert.equal(after.searchParams.get('db'), null, 'the request is not left in the address');
    assert.equal(after.searchParams.get('s').split('.').slice(0, 5).join('.'), before.searchParams.get('s').split('.').slice(0, 5).join('.'), 'the same order, the same step');
    await page.locator('[data-testid="to-end"]').click();
    const onInnodb = await verdict(page);
    assert.match(onInnodb, /double|twice/i, onInnodb);
    const both = page.locator('[data-testid="both-databases"]');
    const pg = (await both.locator('[data-testid="outcome-postgresql"]').innerText()).trim();
    const inno = (await both.locator('[data-testid="outcome-innodb"]').innerText()).trim();
    assert.match(pg, /PostgreSQL 15/);
    assert.match(inno, /MariaDB 10\.11/);
    assert.notEqual(pg.replace(/^.*\n/, ''), inno.replace(/^.*\n/, ''), 'the two outcomes differ');
    assert.match(await both.locator('[data-testid="database-parting"]').innerText(), /They part at step \d+/);
    const reasons = await both.locator('[data-testid="database-reasons"] li').allInnerTexts();
    assert.equal(reasons.length, 2, reasons.join(' | '));
    assert.match(reasons[0], /^MySQL\/InnoDB: /);
    assert.match(reasons[1], /^PostgreSQL: /);
    await page.screenshot({ path: join(SCREENSHOTS, 'databases-1280.png'), fullPage: true });
    await both.screenshot({ path: join(SCREENSHOTS, 'databases-side-by-side.png') });
    assert.deepEqual(await axe(page), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a link keeps the database, and the exports give MariaDB scripts on InnoDB', async () => {
  const first = await open('/chapter/4');
  let link;
  try {
    await chooseInnodb(first.page);
    link = await first.page.locator('[data-testid="share-link"]').inputValue();
    assert.match(link, /\.innodb$/);
    await first.page.locator('[data-testid="export-mysql"]').click();
    const text = await first.page.locator('[data-testid="export-output"]').innerText();
    assert.match(text, /create database `last_seat`/);
    assert.match(text, /MariaDB answers: /);
    assert.equal(await first.page.locator('[data-testid="export-isolation"]').count(), 0);
  } finally {
    await first.context.close();
  }
  const again = await open(new URL(link).pathname + new URL(link).search);
  try {
    assert.equal(await pressed(again.page, 'innodb'), 'true');
    assert.equal(await withInnodb(again.page), true, 'a link on InnoDB opens the bundle with its model');
    assert.deepEqual(again.errors, []);
  } finally {
    await again.context.close();
  }
});

test('Run on MariaDB runs the InnoDB schedule on the real server and agrees with the model', async () => {
  const { context, page, errors } = await open('/chapter/4');
  try {
    await repeatableRead(page);
    await chooseInnodb(page);
    const button = page.locator('[data-testid="run-mariadb"]');
    await button.waitFor({ timeout: 10_000 });
    if (!EXPECT_MARIADB) return;
    await page.locator('[data-testid="run-mariadb"]:not([disabled])').waitFor({ timeout: 10_000 });
    await button.click();
    const result = page.locator('[data-testid="real-result"][data-agree]');
    await result.waitFor({ timeout: 30_000 });
    assert.equal(await result.getAttribute('data-agree'), 'true', await result.innerText());
    assert.match(await result.innerText(), /the model and MariaDB agree/);
    await page.locator('.real').screenshot({ path: join(SCREENSHOTS, 'real-run-mariadb.png') });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('at 375 px the switch and the side-by-side view fit, and the claim table works on the home page', async () => {
  const { context, page, errors } = await open('/chapter/4', { width: 375, height: 800 });
  try {
    await chooseInnodb(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling (${overflow} px)`);
    await page.locator('[data-testid="both-databases"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'databases-375.png'), fullPage: true });
    assert.deepEqual(await axe(page), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
  const home = await open('/', { width: 1280, height: 900 }, '[data-testid="claim"]');
  try {
    assert.equal(await withInnodb(home.page), false);
    await home.page.locator('[data-testid="claim-run"]').click();
    const summary = home.page.locator('[data-testid="claim-summary"]');
    await summary.waitFor({ timeout: 60_000 });
    assert.equal(await withInnodb(home.page), true, 'the claim needs both models: the page loaded them');
    assert.equal(new URL(home.page.url()).hash, '#claim');
    assert.match(await summary.innerText(), /The claim holds in \d+ of \d+ scenarios/);
    await home.page.locator('[data-testid="claim"]').screenshot({ path: join(SCREENSHOTS, 'claim.png') });
    assert.deepEqual(await axe(home.page), []);
    assert.deepEqual(home.errors, []);
  } finally {
    await home.context.close();
  }
});

test('from the first bundle, "Compare with InnoDB" loads both models and stays on PostgreSQL', async () => {
  const { context, page, errors } = await open('/chapter/4');
  try {
    await repeatableRead(page);
    const token = new URL(page.url()).searchParams.get('s');
    const both = page.locator('[data-testid="both-databases"]');
    assert.match(await both.innerText(), /second download/);
    await both.locator('[data-testid="both-load"]').click();
    await page.locator('[data-testid="database-parting"]').waitFor({ timeout: 30_000 });
    assert.equal(await withInnodb(page), true);
    assert.equal(await pressed(page, 'postgresql'), 'true', 'the lab stays on PostgreSQL');
    assert.equal(new URL(page.url()).searchParams.get('s'), token, 'the same state');
    assert.match(await both.locator('[data-testid="outcome-innodb"]').innerText(), /MariaDB 10\.11/);
    assert.ok(await onScreen(both), 'the reader is brought back to the view they asked for');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
