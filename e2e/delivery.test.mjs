// Delivery and accessibility of the built page, in headless Chromium against the real server
// (BASE_URL): the bytes over the wire of a first visit, the Cache-Control and Content-Encoding
// headers, each chapter's title and prose in its HTML before any wasm runs, with nothing that
// holds the first paint (and the time to the first readable text on throttled 3G profiles,
// beside the floor each profile sets: its latency and the document's bytes at its throughput),
// axe-core on the home page and every chapter, and the defence × scenario matrix as a picture
// whose cells load a run.
//
// The figures are printed as `figure: …` lines (and as test diagnostics) for the report.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, useBrowser, visitBytes } from './browser.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const CHAPTERS = [1, 2, 3, 4, 5, 6];
/** The chapters of numbered seats, whose first visit is the first bundle; chapter 6 (the shapes
 *  beyond seats) is the third's, held to the same budget. */
const SEAT_CHAPTERS = [1, 2, 3, 4, 5];
/** Issue 7's goal for a first visit, reported as a figure; and the budget the page is held to,
 *  so that it cannot grow unnoticed. Lower the budget as the page shrinks; never raise it without
 *  saying why. (Issue 22 raised it to 375 KiB for InnoDB's model, then brought it back by
 *  leaving that model out of the first bundle. Issue 23 raised it to 367 KiB for the shapes'
 *  models, words and picture, then brought it back by moving them to a bundle of their own,
 *  chapter 6 alone, which leaves out what shows a race for seats.) */
const FIRST_VISIT_GOAL = 350 * 1024;
const FIRST_VISIT_BUDGET = 350 * 1024;
/** The whole page (InnoDB's model, the shapes and the seats), loaded for a link on InnoDB or
 *  when a reader asks for it: about 53 KB more than the first. (Issue 23 raised it from
 *  388 KiB to 400 KiB for the username's words, picture and InnoDB rules, 407,037 B; then to
 *  402 KiB for PostgreSQL's lock of each account of a name, 409,688 B.) */
const INNODB_VISIT_BUDGET = 402 * 1024;

const browser = useBrowser();

function figure(t, text) {
  console.log(`figure: ${text}`);
  t.diagnostic(text);
}

const url = (path) => new URL(path, BASE_URL).href;

/** HTML text content with the entities the server writes turned back into characters. */
function unescape(html) {
  return html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

/** The chapters' titles and prose, as the home page's HTML and each chapter's HTML carry them. */
async function chapterHtml(n) {
  const response = await fetch(url(`/chapter/${n}`));
  assert.equal(response.status, 200);
  return { response, html: await response.text() };
}

/** The bytes of every response of a first visit to `path`, by URL. */
const visit = (path) => visitBytes(browser, path, { ready: '[data-testid="timeline"]' });

test('a first visit to a chapter stays within its byte budget over the wire', async (t) => {
  // Every chapter's figure first, then the verdict on each.
  const visits = [];
  for (const n of SEAT_CHAPTERS) {
    const responses = await visit(`/chapter/${n}`);
    const total = responses.reduce((a, r) => a + r.bytes, 0);
    const wasm = responses.filter((r) => r.url.endsWith('.wasm')).map((r) => r.bytes);
    figure(t, `chapter ${n} first visit: ${total} bytes over the wire in ${responses.length} responses (wasm ${wasm.join(', ')} bytes); the goal is ${FIRST_VISIT_GOAL}${total <= FIRST_VISIT_GOAL ? ': met' : ': missed'}`);
    visits.push({ n, responses, total, wasm });
  }
  for (const { n, responses, total, wasm } of visits) {
    assert.ok(wasm.length === 1, `chapter ${n}: the wasm was fetched once`);
    assert.deepEqual(responses.filter((r) => r.url.includes('/innodb-page/')), [], 'InnoDB\'s model is not part of a first visit');
    assert.deepEqual(responses.filter((r) => r.url.includes('/shapes-page/')), [], 'the shapes are not part of a first visit');
    assert.ok(total <= FIRST_VISIT_BUDGET, `chapter ${n}: ${total} bytes over the wire, more than the budget of ${FIRST_VISIT_BUDGET}`);
  }
});

test('chapter 6 opens a bundle of its own within the first visit\'s budget, and hands the seats back to the first', async (t) => {
  const responses = await visit('/chapter/6');
  const total = responses.reduce((a, r) => a + r.bytes, 0);
  const wasm = responses.filter((r) => r.url.endsWith('.wasm'));
  figure(t, `chapter 6 first visit (its own bundle): ${total} bytes over the wire in ${responses.length} responses (wasm ${wasm.map((r) => r.bytes).join(', ')} bytes); the goal is ${FIRST_VISIT_GOAL}${total <= FIRST_VISIT_GOAL ? ': met' : ': missed'}`);
  assert.equal(wasm.length, 1, 'one wasm');
  assert.match(wasm[0].url, /\/shapes-page\//, 'chapter 6\'s own bundle');
  assert.ok(total <= FIRST_VISIT_BUDGET, `${total} bytes over the wire, more than the budget of ${FIRST_VISIT_BUDGET}`);

  // From chapter 5 (the first bundle), the link to chapter 6 loads the page anew, with its lab.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url('/chapter/5'));
  await page.locator('[data-testid="timeline"]').waitFor();
  const wasmUrls = [];
  page.on('response', (r) => { if (r.url().endsWith('.wasm')) wasmUrls.push(r.url()); });
  await page.locator('.chapter-nav a[href="/chapter/6"]').click();
  await page.waitForURL(/\/chapter\/6$/);
  await page.locator('[data-testid="chapter-6"] [data-testid="timeline"]').waitFor();
  assert.equal((await page.locator('[data-testid="chapter-title"]').innerText()).trim(), 'The same shape everywhere');
  assert.ok(wasmUrls.some((u) => u.includes('/shapes-page/')), `chapter 6's bundle was loaded: ${wasmUrls}`);
  // Chapter 1 and the home page from there load the first bundle again, with their labs.
  const before = wasmUrls.length;
  await page.locator('.topbar a[href="/chapter/1"]').click();
  await page.locator('[data-testid="chapter-1"] [data-testid="timeline"]').waitFor();
  assert.equal(wasmUrls.length, before + 1, 'chapter 1 loads a wasm again');
  assert.doesNotMatch(wasmUrls.at(-1), /\/(shapes|innodb)-page\//, 'the first bundle');
  await page.goBack();
  await page.locator('[data-testid="chapter-6"] [data-testid="timeline"]').waitFor();
  await page.locator('.topbar a[href="/"]').first().click();
  await page.locator('[data-testid="chapters"]').waitFor();
  assert.doesNotMatch(wasmUrls.at(-1), /\/(shapes|innodb)-page\//, 'the home page is the first bundle\'s');
  await context.close();
});

test('a link on InnoDB opens the bundle with its model, within its own budget', async (t) => {
  const responses = await visit('/chapter/4?db=innodb');
  const total = responses.reduce((a, r) => a + r.bytes, 0);
  const wasm = responses.filter((r) => r.url.endsWith('.wasm'));
  figure(t, `chapter 4 with InnoDB's model: ${total} bytes over the wire in ${responses.length} responses (wasm ${wasm.map((r) => r.bytes).join(', ')} bytes)`);
  assert.equal(wasm.length, 1, 'one wasm');
  assert.match(wasm[0].url, /\/innodb-page\//, 'the bundle with InnoDB\'s model');
  assert.ok(total <= INNODB_VISIT_BUDGET, `${total} bytes over the wire, more than the budget of ${INNODB_VISIT_BUDGET}`);
});

test('hashed files are sent compressed and cached for good, the HTML is never cached', async () => {
  const { response, html } = await chapterHtml(1);
  assert.equal(response.headers.get('cache-control'), 'no-cache');
  assert.match(response.headers.get('content-type'), /^text\/html/);
  // Attribute values may be quoted or not (the HTML is minified).
  const assets = [...html.matchAll(/(?:href|src)=["']?(\/[^"' >]+\.(?:wasm|js|css))/g)].map((m) => m[1]);
  assert.ok(assets.some((a) => a.endsWith('.wasm')), `the HTML names the wasm: ${assets}`);
  for (const asset of new Set(assets)) {
    for (const [accept, encoding] of [['br, gzip', 'br'], ['gzip', 'gzip']]) {
      const r = await fetch(url(asset), { headers: { 'accept-encoding': accept } });
      assert.equal(r.status, 200, asset);
      assert.equal(r.headers.get('content-encoding'), encoding, `${asset} for ${accept}`);
      assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
      await r.arrayBuffer();
    }
  }
});

test("each chapter's HTML carries its title and prose before any wasm runs", async () => {
  for (const n of CHAPTERS) {
    const { html } = await chapterHtml(n);
    const text = unescape(html);
    const title = text.match(/<title>([^<]*)<\/title>/)?.[1] ?? '';
    assert.match(title, new RegExp(`^Chapter ${n}: .+ · Last Seat$`), `chapter ${n}'s title`);
    const heading = text.match(/<h1>([^<]+)<\/h1>/)?.[1];
    assert.ok(heading && title.includes(heading), `chapter ${n}: <h1>${heading}</h1> in <title>${title}</title>`);
    const paragraphs = [...text.matchAll(/<div class="prose">(.*?)<\/div>/gs)][0]?.[1].match(/<p>[^<]{80,}<\/p>/g) ?? [];
    assert.ok(paragraphs.length >= 1, `chapter ${n} has its prose in the HTML`);
    // The first paint needs nothing but this HTML: no style sheet or script to fetch first.
    assert.doesNotMatch(html, /<link[^>]*rel=["']?stylesheet/, `chapter ${n}: a render-blocking style sheet`);
    assert.doesNotMatch(html, /<script(?![^>]*type=["']?module)[^>]*src=/, `chapter ${n}: a render-blocking script`);
    assert.match(html, /<style[^>]*>[^<]*\.prose/, `chapter ${n}: the prose's style is inline`);
  }
  const home = unescape(await (await fetch(url('/'))).text());
  assert.match(home, /<h1>Last Seat<\/h1>/);
  assert.match(home, /same seat in the same second/);
});

test('with JavaScript off, a chapter still reads', async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 800 }, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(url('/chapter/4'), { waitUntil: 'load' });
  assert.equal((await page.locator('#prerendered h1').innerText()).trim(), 'Who sold my seat twice?');
  assert.match(await page.locator('#prerendered .prose').innerText(), /Adam and Omar both want A7/);
  await page.screenshot({ path: join(SCREENSHOTS, 'delivery-no-js-375.png'), fullPage: false });
  await context.close();
});

/** The network profiles: Chrome DevTools' presets (as Puppeteer defines them: their latency is
 *  added to every request, the document's included), and WebPageTest's "3G Slow" (400 ms round
 *  trip, 400 kbps both ways). Throughputs in bytes per second. */
const PROFILES = {
  'slow 3G': { latency: 2000, downloadThroughput: (500 * 1000) / 8 * 0.8, uploadThroughput: (500 * 1000) / 8 * 0.8 },
  'fast 3G': { latency: 562.5, downloadThroughput: (1.6 * 1000 * 1000) / 8 * 0.9, uploadThroughput: (750 * 1000) / 8 * 0.9 },
  'WebPageTest 3G Slow': { latency: 400, downloadThroughput: (400 * 1000) / 8, uploadThroughput: (400 * 1000) / 8 },
};

test('on a throttled 3G phone the prose is on screen long before the wasm has loaded', async (t) => {
  for (const [name, conditions] of Object.entries(PROFILES)) {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, isMobile: true });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, ...conditions });
    // The document's bytes over the wire: with its latency, what no first paint can beat.
    let documentId;
    let documentBytes = 0;
    cdp.on('Network.requestWillBeSent', (e) => { if (e.type === 'Document') documentId = e.requestId; });
    cdp.on('Network.loadingFinished', (e) => { if (e.requestId === documentId) documentBytes = e.encodedDataLength; });
    await page.goto(url('/chapter/1'), { waitUntil: 'commit', timeout: 120_000 });
    // The first paint with text in it; then the moment the app had drawn its own lab.
    await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, null, { timeout: 120_000 });
    const readable = await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0].startTime,
      prose: document.querySelector('.prose p')?.textContent.length ?? 0,
      // The files the browser held the first paint for (none: the style sheets are inline).
      blocking: performance.getEntriesByType('resource')
        .filter((r) => r.renderBlockingStatus === 'blocking')
        .map((r) => r.name),
    }));
    await page.locator('[data-testid="timeline"]').waitFor({ timeout: 120_000 });
    const app = await page.evaluate(() => performance.now());
    const floor = conditions.latency + (documentBytes / conditions.downloadThroughput) * 1000;
    figure(t, `${name}: first readable text at ${Math.round(readable.fcp)} ms (the floor, the document's ${conditions.latency} ms latency and its ${documentBytes} bytes at ${conditions.downloadThroughput} B/s, is ${Math.round(floor)} ms), the lab drawn at ${Math.round(app)} ms`);
    assert.ok(readable.prose > 80, 'the first paint already has the prose');
    assert.ok(readable.fcp < app / 2, `the prose (${readable.fcp} ms) shows well before the app (${app} ms)`);
    assert.deepEqual(readable.blocking, [], 'the first paint needed nothing but the HTML');
    await context.close();
  }
});

/** axe-core's serious and critical violations on the page as it stands. */
async function axe(page) {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

test('axe-core finds no serious or critical violation on the home page and any chapter', async (t) => {
  const found = [];
  for (const path of ['/', ...CHAPTERS.map((n) => `/chapter/${n}`)]) {
    for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 800 }]) {
      // axe-core goes in as an inline script, which the page's Content-Security-Policy refuses.
      const context = await browser.newContext({ viewport, bypassCSP: true });
      const page = await context.newPage();
      await page.goto(url(path), { waitUntil: 'load' });
      await page.locator(path === '/' ? '[data-testid="defences"] li' : '[data-testid="timeline"]').first().waitFor({ timeout: 30_000 });
      if (path === '/chapter/4' || path === '/chapter/6') {
        // The panels of this file's concern, opened: the matrix and the exports.
        await page.locator('[data-testid="build-matrix"]').click();
        await page.locator('[data-testid="matrix"]').waitFor({ timeout: 60_000 });
        await page.locator('[data-testid="export-json"]').click();
        await page.locator('[data-testid="replay-command"]').waitFor();
      }
      const violations = await axe(page);
      const count = violations.reduce((a, v) => a + v.nodes.length, 0);
      figure(t, `axe ${path} at ${viewport.width}px: ${count} serious or critical`);
      for (const v of violations) {
        for (const node of v.nodes) {
          figure(t, `  ${v.impact} ${v.id}: ${node}`);
          found.push(`${path} ${viewport.width}px ${v.id} ${node}`);
        }
      }
      await context.close();
    }
  }
  assert.deepEqual(found, []);
});

test('the matrix is a picture whose cells load an example run, by click or by Enter', async (t) => {
  for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 800 }]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(url('/chapter/4'), { waitUntil: 'load' });
    await page.locator('[data-testid="timeline"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="build-matrix"]').click();
    const matrix = page.locator('[data-testid="matrix"]');
    await matrix.waitFor({ timeout: 60_000 });
    const cells = matrix.locator('[data-testid="matrix-cell"]');
    assert.equal(await cells.count(), 36, 'twelve defences by three scenarios');
    const text = await matrix.innerText();
    assert.doesNotMatch(text, /[a-z]_[a-z]/, 'no snake_case identifier on the picture');
    for (const title of ['Check, then act', 'Hold, pay, confirm', 'Redis hold, then a ticket', 'Redis hold, then an UPDATE']) {
      assert.ok(text.includes(title), title);
    }
    assert.ok((await page.locator('[data-testid="matrix-legend"] li').count()) >= 7, 'a legend');
    const bad = matrix.locator('[data-testid="matrix-cell"].bad');
    const badCount = await bad.count();
    figure(t, `matrix at ${viewport.width}px: 36 cells, ${badCount} red`);
    assert.ok(badCount >= 4, 'check-then-act and the transaction double-book');
    const section = page.locator('section.matrix');
    await section.scrollIntoViewIfNeeded();
    await section.screenshot({ path: join(SCREENSHOTS, `matrix-${viewport.width}.png`) });

    // A click loads the cell's double booking into the lab.
    const before = page.url();
    const cell = matrix.locator('[data-defence="check_then_act"][data-scenario="two-buyers"]');
    assert.match(await cell.textContent(), /4 of 6 orders sell twice\. Check, then act, Two buyers\. 4 of 6 orders sell the seat twice/);
    await cell.click();
    const notice = page.locator('[data-testid="notice"]');
    await notice.waitFor();
    assert.match(await notice.innerText(), /Loaded from the matrix: Check, then act, two buyers\. In this order, nobody was stopped: the seat was sold twice/);
    await page.waitForFunction(() => /ch4-check_then_act\.0101\./.test(location.search));
    assert.notEqual(before, '', 'the address holds the loaded run: the defence and the order');
    await page.screenshot({ path: join(SCREENSHOTS, `matrix-loaded-${viewport.width}.png`) });

    // Enter on a focused cell loads another one (three buyers under a row lock).
    const lock = matrix.locator('[data-defence="lock_row"][data-scenario="three-buyers"]');
    await lock.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /Row lock, three buyers/.test(document.querySelector('[data-testid="notice"]')?.textContent ?? ''));
    const lanes = await page.locator('[data-testid="timeline"]').innerText();
    assert.match(lanes, /Zoe/, 'the lab now runs the three buyers');
    await context.close();
  }
});
