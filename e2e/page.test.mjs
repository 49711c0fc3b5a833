// Browser tests of the Last Seat page, in headless Chromium driven by playwright-core.
// Starts nothing itself: BASE_URL names a running server (scripts/test starts the real backend
// on a free port, serving the freshly built dist/). With EXPECT_POSTGRES=1 the health line must
// say that the real database is connected.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, useBrowser } from './browser.mjs';

const EXPECT_POSTGRES = process.env.EXPECT_POSTGRES === '1';


const browser = useBrowser();

/** Opens the page at `viewport`, recording every console error and uncaught exception. */
async function open(viewport, { setup, path = '/', ready = '[data-testid="defences"] li' } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push({ text: message.text(), url: message.location().url });
  });
  page.on('pageerror', (error) => errors.push({ text: String(error), url: '' }));
  if (setup) await setup(page);
  await page.goto(new URL(path, BASE_URL).href, { waitUntil: 'load' });
  await page.locator(ready).first().waitFor({ timeout: 20_000 });
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

// ---------------------------------------------------------------------------------------------
// The chapters.

const FIGURES = {};

after(() => {
  writeFileSync(join(SCREENSHOTS, 'figures.json'), JSON.stringify(FIGURES, null, 2) + '\n');
});

/** Opens a chapter (optionally with a state token) and waits for its lab. */
async function openChapter(n, { viewport = { width: 1280, height: 900 }, query = '', setup } = {}) {
  return open(viewport, { setup, path: `/chapter/${n}${query}`, ready: '[data-testid="timeline"]' });
}

const stepCount = async (page) => (await page.locator('[data-testid="step-count"]').innerText()).trim();
const verdictText = async (page) => (await page.locator('[data-testid="verdict"]').innerText()).trim();
const actors = (page) => page.locator('.tl-event').evaluateAll((events) =>
  events.sort((a, b) => Number(a.dataset.testid.split('-')[1]) - Number(b.dataset.testid.split('-')[1]))
    .map((e) => `${e.dataset.actor}:${e.dataset.label}`));

/** Presses play at the fast speed and waits until the playhead reaches the end. */
async function playToTheEnd(page) {
  await page.locator('[data-testid="speed"]').selectOption('250');
  await page.locator('[data-testid="reset"]').click();
  await page.locator('[data-testid="play"]').click();
  await page.waitForFunction(() => {
    const [at, of] = document.querySelector('[data-testid="step-count"]').textContent.split('/').map((x) => Number(x.trim()));
    return at === of && at > 0;
  }, null, { timeout: 30_000 });
}

for (const n of [1, 2, 3, 4, 5]) {
  test(`chapter ${n} loads without console errors and plays to its verdict`, async (t) => {
    const { context, page, errors } = await openChapter(n);
    try {
      const title = (await page.locator('[data-testid="chapter-title"]').innerText()).trim();
      assert.ok(title.length > 3, 'the chapter has a title');
      assert.ok((await page.locator('.prose p').count()) >= 1, 'the chapter has its text');
      assert.ok((await page.locator('[data-testid="chapter-goal"]').innerText()).trim().length > 10, 'the chapter states its goal');
      assert.ok((await page.locator('[data-testid^="seat-"]').count()) >= 1, 'the seat map shows seats');
      await playToTheEnd(page);
      const verdict = await verdictText(page);
      assert.ok(verdict.length > 5, 'a verdict is shown');
      const reason = (await page.locator('[data-testid="reason"]').innerText()).trim();
      assert.match(reason, /^Step \d+: /);
      t.diagnostic(`chapter ${n}: "${title}" → ${verdict}`);
      if (n === 1) {
        const firstRender = await page.evaluate(() =>
          performance.getEntriesByName('last-seat:first-render')[0]?.startTime);
        FIGURES.first_render_ms = Math.round(firstRender);
        t.diagnostic(`first render of chapter 1: ${firstRender.toFixed(0)} ms after navigation start`);
      }
      await page.screenshot({ path: join(SCREENSHOTS, `chapter-${n}.png`), fullPage: true });
      assert.deepEqual(unexpected(errors), [], 'the console reported errors');
    } finally {
      await context.close();
    }
  });
}

test('chapter 4: moving Omar\'s read after Adam\'s write by keyboard turns the double booking into sold out', async () => {
  const { context, page, errors } = await openChapter(4);
  try {
    const start = await actors(page);
    assert.deepEqual(start.map((a) => a.split(':')[0]), ['adam', 'omar', 'adam', 'omar']);
    assert.match(start[1], /^omar:read A7/);
    assert.match(start[2], /^adam:write A7/);
    await page.locator('[data-testid="to-end"]').click();
    assert.match(await verdictText(page), /double/i);
    await page.locator('[data-testid="event-1"]').click();
    await page.keyboard.press(']');
    const order = await actors(page);
    assert.deepEqual(order.map((a) => a.split(':')[0]), ['adam', 'adam', 'omar', 'omar']);
    await page.locator('[data-testid="to-end"]').click();
    const verdict = await verdictText(page);
    assert.doesNotMatch(verdict, /double/i);
    assert.match(verdict, /sold out/i);
    assert.match((await page.locator('[data-testid="phone-omar"] .phone-screen').innerText()).trim(), /^A7 is already taken/);
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});

test('chapter 4: dragging Omar\'s read past Adam\'s write does the same', async () => {
  const { context, page, errors } = await openChapter(4);
  try {
    await page.locator('[data-testid="event-1"]').dragTo(page.locator('[data-testid="event-2"]'));
    const order = await actors(page);
    assert.deepEqual(order.map((a) => a.split(':')[0]), ['adam', 'adam', 'omar', 'omar']);
    await page.locator('[data-testid="to-end"]').click();
    assert.match(await verdictText(page), /sold out/i);
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});

test('chapter 4: a waiting buyer cannot be scheduled and the page says who they wait for', async () => {
  const { context, page } = await openChapter(4);
  try {
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Row lock' });
    await page.locator('[data-testid="to-end"]').click();
    const before = await actors(page);
    // Find the first waiting step and try to move its buyer's next step right behind it.
    const waiting = await page.locator('.tl-wait').count();
    assert.ok(waiting >= 1, 'under a row lock the second buyer waits');
    // Moving Adam's commit (the last adam step) to the very end makes Omar's later steps run
    // while he still waits: the page refuses and names Adam.
    const adamCommit = before.findIndex((a) => a.startsWith('adam:commit'));
    assert.ok(adamCommit > 0, `adam commits: ${before}`);
    await page.locator(`[data-testid="event-${adamCommit}"]`).click();
    for (let i = 0; i < before.length; i++) await page.keyboard.press(']');
    const notice = page.locator('[data-testid="notice"]');
    await notice.waitFor();
    assert.match(await notice.innerText(), /adam/i);
    assert.match(await notice.innerText(), /wait/i);
  } finally {
    await context.close();
  }
});

test('chapter 4: switching the defence to an atomic write stops the second buyer', async () => {
  const { context, page, errors } = await openChapter(4);
  try {
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Atomic write' });
    await page.locator('[data-testid="to-end"]').click();
    const verdict = await verdictText(page);
    assert.doesNotMatch(verdict, /double/i);
    assert.match(await page.locator('.verdict').getAttribute('class'), /verdict-good/);
    const phones = await page.locator('.phone-screen').allInnerTexts();
    assert.equal(phones.filter((p) => /is yours|held for you/.test(p)).length, 1, `one buyer gets A7: ${phones}`);
    assert.equal(phones.filter((p) => /A7 is already taken/.test(p)).length, 1, `the other is told A7 is already taken: ${phones}`);
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});

test('chapter 4: the explorer finds a double booking for check-then-act and none for the atomic write', async (t) => {
  const { context, page, errors } = await openChapter(4);
  try {
    await page.locator('[data-testid="explore"]').click();
    const report = page.locator('[data-testid="explore-result"]');
    await report.waitFor();
    assert.ok(Number(await report.getAttribute('data-double')) > 0);
    await page.locator('[data-testid="counterexample"]').click();
    await page.locator('[data-testid="to-end"]').click();
    assert.match(await verdictText(page), /double/i);

    await page.locator('[data-testid="defence"]').selectOption({ label: 'Atomic write' });
    await page.locator('[data-testid="explore"]').click();
    await report.waitFor();
    assert.equal(Number(await report.getAttribute('data-double')), 0);
    assert.match(await report.innerText(), /None of the \d+ orders double-books/);
    assert.equal(await page.locator('[data-testid="counterexample"]').count(), 0);

    await page.locator('[data-testid="build-matrix"]').click();
    const matrix = page.locator('[data-testid="matrix"]');
    await matrix.waitFor();
    assert.ok((await matrix.locator('tbody tr').count()) >= 6, 'a row per defence');
    await matrix.screenshot({ path: join(SCREENSHOTS, 'matrix.png') });
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});

test('the explorer runs every order of three buyers with four operations each in the browser', async (t) => {
  const { context, page, errors } = await openChapter(5);
  try {
    await page.locator('[data-testid="sandbox-defence"]').selectOption('transaction');
    const lanes = await page.locator('[data-testid^="lane-"]').count();
    assert.equal(lanes, 3);
    assert.equal(await page.locator('.tl-event').count(), 12, 'three buyers, four operations each');
    const runs = [];
    for (let i = 0; i < 5; i++) {
      await page.locator('[data-testid="explore"]').click();
      const report = page.locator('[data-testid="explore-result"]');
      await report.waitFor();
      runs.push(Number(await report.getAttribute('data-ms')));
      assert.match(await report.innerText(), /of 16290 orders double-book|16290/);
    }
    runs.sort((a, b) => a - b);
    FIGURES.explorer_3x4_ms_median = runs[2];
    FIGURES.explorer_3x4_ms_runs = runs;
    t.diagnostic(`explorer, 3 buyers × 4 operations, in Chromium: median ${runs[2]} ms of ${runs.join(', ')}`);
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});

test('chapter 2: a Redis hold that runs out sells twice with a plain UPDATE, not under a unique key', async () => {
  const { context, page, errors } = await openChapter(2);
  try {
    await page.locator('[data-testid="part-3"]').click();
    assert.match(await page.locator('[data-testid="scenario-title"]').innerText(), /Redis/);
    // After phone 1's SET NX: Redis holds C3 for it while the database row is still free.
    await page.locator('[data-testid="reset"]').click();
    await page.keyboard.press('ArrowRight');
    await page.locator('[data-testid="redis-C3"]').waitFor();
    assert.equal(await page.locator('[data-testid="seat-C3"]').getAttribute('data-status'), 'free');
    assert.match(await page.locator('[data-testid="redis-keys"]').innerText(), /hold:77:C3\s+phone1:1/);
    await page.locator('[data-testid="to-end"]').click();
    assert.match(await verdictText(page), /Double booking: C3 sold to Phone1 and Phone2/);
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Ticket under a unique key' });
    await page.locator('[data-testid="to-end"]').click();
    const verdict = await verdictText(page);
    assert.doesNotMatch(verdict, /double/i);
    assert.match(verdict, /refund/i);
    assert.match(await page.locator('[data-testid="phone-phone1"] .phone-screen').innerText(), /23505/);
    // The real run: PostgreSQL for the database steps, the same simulated Redis on both sides.
    if (EXPECT_POSTGRES) {
      await page.locator('[data-testid="run-postgres"]:not([disabled])').waitFor({ timeout: 10_000 });
      await page.locator('[data-testid="run-postgres"]').click();
      const result = page.locator('[data-testid="real-result"][data-agree]');
      await result.waitFor({ timeout: 30_000 });
      assert.equal(await result.getAttribute('data-agree'), 'true', await result.innerText());
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'chapter-2-redis.png'), fullPage: true });
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});

test('Run on PostgreSQL reports that the model and the database agree', async () => {
  const { context, page, errors } = await openChapter(4);
  try {
    await page.locator('[data-testid="run-postgres"]:not([disabled])').waitFor({ timeout: 10_000 });
    await page.locator('[data-testid="run-postgres"]').click();
    const result = page.locator('[data-testid="real-result"]');
    await result.waitFor({ timeout: 30_000 });
    assert.equal(await result.getAttribute('data-agree'), 'true', await result.innerText());
    assert.match(await result.innerText(), /Identical/);
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Row lock' });
    await page.locator('[data-testid="run-postgres"]').click();
    await page.locator('[data-testid="real-result"][data-agree]').waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('[data-testid="real-result"]').getAttribute('data-agree'), 'true');
    await page.locator('.real').screenshot({ path: join(SCREENSHOTS, 'real-run.png') });
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});

test('Prove it on PostgreSQL runs every order and says that the model and the database agree', async () => {
  const { context, page, errors } = await openChapter(4);
  try {
    const prove = page.locator('[data-testid="prove"]');
    // Without the real server, the next test holds the button to saying so.
    if (!EXPECT_POSTGRES) return;
    await page.locator('[data-testid="prove"]:not([disabled])').waitFor({ timeout: 10_000 });
    assert.equal((await prove.innerText()).trim(), 'Prove it on PostgreSQL');
    await prove.click();
    const proof = page.locator('[data-testid="proof"][data-agree]');
    await proof.waitFor({ timeout: 120_000 });
    const text = await proof.innerText();
    assert.equal(await proof.getAttribute('data-agree'), 'true', text);
    const [, orders] = text.match(/All (\d+) orders: the model and PostgreSQL agree\./) ?? [];
    assert.ok(orders, text);
    // The same count as the explorer's, which ran them in the model.
    await page.locator('[data-testid="explore"]').click();
    assert.match(await page.locator('[data-testid="explore-result"]').innerText(), new RegExp(`of ${orders} orders|the ${orders} orders`));
    assert.match(text, /PostgreSQL ran \d+ of them a second/);
    await page.locator('.explorer').screenshot({ path: join(SCREENSHOTS, 'proof.png') });
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});

test('without a server or its database, Prove it on PostgreSQL says so instead of failing', async () => {
  const cases = [
    [(route) => route.abort('connectionrefused'), 'Prove it on PostgreSQL: needs the Last Seat server'],
    [(route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"field":null,"message":"down"}}' }),
      'Prove it on PostgreSQL: the server cannot reach its database now'],
  ];
  for (const [answer, words] of cases) {
    const { context, page, errors } = await openChapter(4, { setup: (p) => p.route('**/api/health', answer) });
    try {
      const prove = page.locator('[data-testid="prove"][disabled]', { hasText: words });
      await prove.waitFor({ timeout: 10_000 });
      assert.equal((await prove.innerText()).trim(), words);
      assert.deepEqual(unexpected(errors, { healthMayFail: true }), []);
    } finally {
      await context.close();
    }
  }
});

test('an order the model marks as a race says so, and a real run that takes the other order names it', async () => {
  // Ana and Ben both wait to insert A1's ticket behind Carl's; Carl's rollback wakes them at once.
  const RACE = {
    version: 1,
    scenario: { seats: [{ id: 'A1' }] },
    actors: {
      carl: [{ op: 'begin' }, { op: 'book', seats: ['A1'] }, { op: 'rollback' }],
      ana: [{ op: 'book', seats: ['A1'] }],
      ben: [{ op: 'begin' }, { op: 'book', seats: ['A1'] }, { op: 'commit' }],
    },
    order: ['carl', 'carl', 'ana', 'ben', 'ben', 'carl', 'ben'],
  };
  const { context, page, errors } = await openChapter(5);
  try {
    await page.locator('[data-testid="schedule-json"]').fill(JSON.stringify(RACE, null, 2));
    await page.locator('[data-testid="apply-schedule"]').click();
    const note = page.locator('[data-testid="race-note"]');
    await note.waitFor();
    assert.match(await note.innerText(), /^Step 6 is a race on a real server/);
    await page.locator('[data-testid="run-postgres"]:not([disabled])').waitFor({ timeout: 10_000 });
    await page.locator('[data-testid="run-postgres"]').click();
    const result = page.locator('[data-testid="real-result"][data-agree]');
    await result.waitFor({ timeout: 30_000 });
    if ((await result.getAttribute('data-agree')) === 'false') {
      assert.match(await result.innerText(), /Different: entry 6 is a race on a real server/);
    }
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});

test('a copied link reproduces the state, and a broken one says so with a way back', async () => {
  const first = await openChapter(4);
  let link;
  let expected;
  try {
    await first.page.locator('[data-testid="defence"]').selectOption({ label: 'Transaction' });
    await first.page.locator('[data-testid="event-3"]').click();
    await first.page.keyboard.press('[');
    await first.page.locator('[data-testid="reset"]').click();
    for (let i = 0; i < 3; i++) await first.page.keyboard.press('ArrowRight');
    link = await first.page.locator('[data-testid="share-link"]').inputValue();
    assert.match(link, /\/chapter\/4\?s=/);
    expected = { order: await actors(first.page), step: await stepCount(first.page), verdict: await verdictText(first.page) };
  } finally {
    await first.context.close();
  }
  const second = await open({ width: 1280, height: 900 }, { path: link.replace(/^https?:\/\/[^/]+/, ''), ready: '[data-testid="timeline"]' });
  try {
    assert.deepEqual(await actors(second.page), expected.order);
    assert.equal(await stepCount(second.page), expected.step);
    assert.equal(await verdictText(second.page), expected.verdict);
    assert.equal(await second.page.locator('[data-testid="defence"] option:checked').innerText(), 'Transaction');
    assert.deepEqual(unexpected(second.errors), []);
  } finally {
    await second.context.close();
  }
  const broken = await open({ width: 1280, height: 900 }, { path: '/chapter/4?s=1.not-a-real-token', ready: '[data-testid="bad-link"]' });
  try {
    assert.ok((await broken.page.locator('[data-testid="link-error"]').innerText()).trim().length > 10);
    await broken.page.locator('[data-testid="link-back"]').click();
    await broken.page.locator('[data-testid="timeline"]').waitFor();
    await broken.page.screenshot({ path: join(SCREENSHOTS, 'bad-link-recovered.png') });
  } finally {
    await broken.context.close();
  }
});

test('a chapter works at 375 px wide: no sideways scrolling of the page, play and reorder', async () => {
  const { context, page, errors } = await openChapter(4, { viewport: { width: 375, height: 812 } });
  try {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
    await page.locator('[data-testid="event-1"]').click();
    await page.keyboard.press(']');
    await playToTheEnd(page);
    assert.match(await verdictText(page), /sold out/i);
    // The last step's SQL, the stored rows and the Redis keys all fit too.
    const wider = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok((await wider()) <= 0, `at the end the page is ${await wider()} px wider than the phone`);
    if (EXPECT_POSTGRES) {
      // The real run's table beside the model's scrolls inside its own box.
      await page.locator('[data-testid="run-postgres"]').click();
      await page.locator('.comparison').waitFor({ timeout: 30_000 });
      assert.ok((await wider()) <= 0, `after the real run the page is ${await wider()} px wider than the phone`);
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'chapter-4-phone-375.png'), fullPage: true });
    await page.goto(new URL('/chapter/2', BASE_URL).href);
    await page.locator('[data-testid="part-3"]').click();
    await page.locator('[data-testid="to-end"]').click();
    assert.ok((await wider()) <= 0, `chapter 2's Redis hold is ${await wider()} px wider than the phone`);
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});
