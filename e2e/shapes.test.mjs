// Chapter 6, "The same shape everywhere", in a real browser: each counter shape with exactly the
// defences that fit it, and the username with those that fit a name (its picture, phones, story
// and step line held to `backend views FILE` at every step, with no seat's word); the counter's picture (value, who was told yes, the row lock, the queue,
// an uncommitted value) held to the model's view (`backend views FILE`) at every step under
// several defences, at 1280 and 375 px; axe-core on the picture in its busiest states; the
// explorer and the matrix on the shapes; and the real run on PostgreSQL.
//
// BASE_URL names a running server; BACKEND_BIN the backend binary (default: the debug build).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_URL, SCREENSHOTS, TARGET, useBrowser } from './browser.mjs';

const BACKEND = process.env.BACKEND_BIN || resolve(TARGET, 'debug', 'backend');
const EXPECT_POSTGRES = process.env.EXPECT_POSTGRES === '1';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const browser = useBrowser();

/** The chapter's parts, in order: the built-in each runs. */
const SHAPES = ['general_admission', 'balance', 'rate_limit', 'coupon'];
/** The defences that fit a counter, as the chooser titles them (shared/src/chapters/ch6.rs). */
const FITTING = {
  check_then_act: 'Check, then act',
  transaction: 'Transaction',
  atomic_update: 'Atomic write',
  lock_row: 'Row lock',
  repeatable_read: 'Repeatable read',
  serializable: 'Serializable',
  lock_nowait: 'Row lock, NOWAIT',
  skip_locked: 'Row lock, SKIP LOCKED',
  repeatable_read_retry: 'Repeatable read, and try again',
  serializable_retry: 'Serializable, and try again',
  lock_nowait_retry: 'Row lock, NOWAIT, and try again',
};

/** The username's part: after the checkout left half-way, so that no older address moved. */
const USERNAME_PART = 5;
/** The defences that fit a username (`USERNAME_FITTING` in shared/src/chapters/ch6.rs). */
const USERNAME_FITTING = {
  check_then_act: 'Check, then act',
  transaction: 'Transaction',
  atomic_update: 'Atomic write',
  lock_row: 'Row lock',
  unique_constraint: 'Unique constraint',
  repeatable_read: 'Repeatable read',
  serializable: 'Serializable',
  repeatable_read_retry: 'Repeatable read, and try again',
  serializable_retry: 'Serializable, and try again',
};

let scratch;
before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'lastseat-shapes-'));
});

/** The model's view of every step of a shape's built-in with every buyer on `defence`. */
function modelViews(shape, defence) {
  const file = JSON.parse(readFileSync(join(ROOT, 'shared', 'scenarios', `shapes-${shape}.json`), 'utf8'));
  for (const actor of Object.values(file.actors)) actor.defence = defence;
  const path = join(scratch, `${shape}-${defence}.json`);
  writeFileSync(path, JSON.stringify(file));
  const dump = execFileSync(BACKEND, ['views', path], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return dump.trim().split('\n').map((line) => JSON.parse(line));
}

async function openChapter(viewport) {
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(new URL('/chapter/6', BASE_URL).href, { waitUntil: 'load' });
  await page.locator('[data-testid="timeline"]').waitFor({ timeout: 30_000 });
  return { context, page, errors };
}

/** Opens a shape's part and picks a defence. */
async function choose(page, shape, defence) {
  await page.locator(`[data-testid="part-${SHAPES.indexOf(shape)}"]`).click();
  await page.locator('[data-testid="defence"]').selectOption({ label: FITTING[defence] });
  await page.locator('[data-testid="reset"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="step-count"]')?.textContent.trim().startsWith('0 /'));
}

/** Opens the username's part and picks a defence. */
async function chooseUsername(page, defence) {
  await page.locator(`[data-testid="part-${USERNAME_PART}"]`).click();
  await page.locator('[data-testid="defence"]').selectOption({ label: USERNAME_FITTING[defence] });
  await page.locator('[data-testid="reset"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="step-count"]')?.textContent.trim().startsWith('0 /'));
}

/** The username's picture, its phones, its verdict and its step line as the page shows them. */
const readUsername = (page) => page.evaluate(() => {
  const text = (el) => (el ? el.textContent.trim() : null);
  const el = document.querySelector('.counter[data-testid^="name-"]');
  return {
    name: el && { id: el.dataset.testid.slice('name-'.length), data: { ...el.dataset }, label: el.getAttribute('aria-label') },
    phones: [...document.querySelectorAll('[data-testid^="phone-text-"]')]
      .map((p) => ({ name: p.dataset.testid.slice('phone-text-'.length), text: text(p) })),
    remembers: [...document.querySelectorAll('[data-testid^="remembers-"], [data-testid^="told-"]')].map(text),
    headline: text(document.querySelector('[data-testid="verdict"]')),
    story: [...document.querySelectorAll('[data-testid="story"] li')].map(text),
    reason: text(document.querySelector('[data-testid="reason"]')),
    seats: document.querySelectorAll('[data-testid="seat-map"]').length,
  };
});

/** Where the page's username step and the model's differ; empty when they agree. */
function usernameDifferences(at, shown, want) {
  const out = [];
  const w = want.name;
  if (!shown.name || !w) return [`${at}: picture drawn ${!!shown.name}, in the model ${!!w}`];
  if (shown.name.id !== w.id) out.push(`${at}: the picture is of ${shown.name.id}, the model ${w.id}`);
  for (const key of ['accounts', 'state', 'claimedBy', 'told', 'lock', 'queue', 'creating', 'claiming']) {
    if ((shown.name.data[key] ?? '') !== list(w[key])) out.push(`${at}: ${key}=${JSON.stringify(shown.name.data[key])}, the model ${JSON.stringify(w[key])}`);
  }
  if (shown.name.label !== w.sentence) out.push(`${at}: reads ${JSON.stringify(shown.name.label)}, the model ${JSON.stringify(w.sentence)}`);
  for (const p of want.phones) {
    const page = shown.phones.find((q) => q.name === p.name);
    if (page?.text !== p.text) out.push(`${at}: ${p.name}'s phone says ${JSON.stringify(page?.text)}, the model ${JSON.stringify(p.text)}`);
  }
  if (shown.headline !== want.verdict.headline) out.push(`${at}: the verdict says ${JSON.stringify(shown.headline)}, the model ${JSON.stringify(want.verdict.headline)}`);
  if (JSON.stringify(shown.story) !== JSON.stringify(want.verdict.story)) out.push(`${at}: the story differs: ${JSON.stringify(shown.story)} / ${JSON.stringify(want.verdict.story)}`);
  if (want.step > 0 && shown.reason !== `Step ${want.step}: ${want.reason}`) out.push(`${at}: the step line says ${JSON.stringify(shown.reason)}, the model ${JSON.stringify(want.reason)}`);
  if (shown.seats !== 0) out.push(`${at}: a seat map is drawn`);
  // No seat's words reach a username's reader, in any line the page shows.
  const lines = [...shown.phones.map((p) => p.text), ...shown.remembers, shown.headline, ...shown.story, shown.reason, shown.name.label];
  for (const line of lines) {
    if (/\b(seats?|booked|booking|hold|holds|held|tickets?|sold)\b/i.test(line ?? '')) out.push(`${at}: ${JSON.stringify(line)} speaks of seats`);
  }
  return out;
}

/** The counter rows the page draws, each its data attributes and what a screen reader hears. */
const readCounters = (page) => page.evaluate(() => [...document.querySelectorAll('.counter[data-testid^="counter-"]')]
  .map((el) => ({ id: el.dataset.testid.slice('counter-'.length), data: { ...el.dataset }, label: el.getAttribute('aria-label'), amount: el.querySelector('.counter-amount')?.textContent.trim() })));

const list = (v) => (Array.isArray(v) ? v.join(',') : v == null ? '' : String(v));

function differences(at, shown, want) {
  const out = [];
  if (shown.length !== want.counters.length) out.push(`${at}: ${shown.length} counters drawn, ${want.counters.length} in the model`);
  for (const row of shown) {
    const w = want.counters.find((c) => c.id === row.id);
    if (!w) { out.push(`${at}: ${row.id} is not in the model`); continue; }
    for (const key of ['kind', 'value', 'state', 'told', 'lock', 'queue', 'pending', 'pendingValue']) {
      if ((row.data[key] ?? '') !== list(w[key])) out.push(`${at}: ${row.id} ${key}=${JSON.stringify(row.data[key])}, the model ${JSON.stringify(w[key])}`);
    }
    if (row.label !== w.sentence) out.push(`${at}: ${row.id} reads ${JSON.stringify(row.label)}, the model ${JSON.stringify(w.sentence)}`);
  }
  return out;
}

test('chapter 6 offers every shape with exactly the defences that fit a counter, and no seat map', async () => {
  const { context, page, errors } = await openChapter({ width: 1280, height: 900 });
  try {
    assert.equal((await page.locator('[data-testid="chapter-title"]').innerText()).trim(), 'The same shape everywhere');
    assert.match(await page.locator('.prose').innerText(), /check.*condition.*shared/i);
    for (const [i, shape] of SHAPES.entries()) {
      await page.locator(`[data-testid="part-${i}"]`).click();
      const options = await page.locator('[data-testid="defence"] option').allInnerTexts();
      assert.deepEqual(options.map((o) => o.trim()).sort(), Object.values(FITTING).sort(), shape);
      assert.equal(await page.locator('[data-testid="seat-map"]').count(), 0, `${shape}: no seat map`);
      const kind = await page.locator('.counter').first().getAttribute('data-kind');
      assert.equal(kind, shape);
    }
    // Played to its end, the last shape's default race (check, then act) oversells the coupon.
    await page.locator('[data-testid="speed"]').selectOption('250');
    await page.locator('[data-testid="reset"]').click();
    await page.locator('[data-testid="play"]').click();
    await page.waitForFunction(() => {
      const [at, of] = document.querySelector('[data-testid="step-count"]').textContent.split('/').map((x) => Number(x.trim()));
      return at === of && at > 0;
    }, null, { timeout: 30_000 });
    assert.equal(await page.locator('[data-testid="counter-SAVE50"]').getAttribute('data-state'), 'over');
    assert.equal(await page.locator('[data-testid="goal"]').getAttribute('data-met'), 'true');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the counter picture is the model\'s at every step, for every shape under four defences, at 1280 and 375 px', async (t) => {
  const problems = [];
  let steps = 0;
  const seen = { lock: 0, queue: 0, pending: 0, over: 0 };
  for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 800 }]) {
    const { context, page, errors } = await openChapter(viewport);
    try {
      for (const shape of SHAPES) {
        for (const defence of ['check_then_act', 'transaction', 'atomic_update', 'lock_row']) {
          const views = modelViews(shape, defence);
          await choose(page, shape, defence);
          for (const want of views) {
            if (want.step > 0) await page.locator('[data-testid="step-next"]').click();
            await page.waitForFunction((c) => document.querySelector('[data-testid="step-count"]')?.textContent.trim() === c, `${want.step} / ${want.steps}`);
            const shown = await readCounters(page);
            problems.push(...differences(`${viewport.width}px ${shape} ${defence} step ${want.step}`, shown, want));
            for (const c of want.counters) {
              seen.lock += c.lock ? 1 : 0;
              seen.queue += c.queue.length ? 1 : 0;
              seen.pending += c.pending ? 1 : 0;
              seen.over += c.state === 'over' ? 1 : 0;
            }
            steps += 1;
          }
        }
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
  t.diagnostic(`${steps} steps checked; rows with a lock ${seen.lock}, a queue ${seen.queue}, an uncommitted value ${seen.pending}, over ${seen.over}`);
  assert.ok(Object.values(seen).every((n) => n > 0), `each thing the picture draws was checked: ${JSON.stringify(seen)}`);
  assert.deepEqual(problems, []);
});

test('the username part offers the defences that fit a name, and its picture, phones and words are the model\'s at every step, at 1280 and 375 px', async (t) => {
  const problems = [];
  let steps = 0;
  const seen = { twice: 0, creating: 0, claiming: 0, queue: 0, lock: 0 };
  for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 800 }]) {
    const { context, page, errors } = await openChapter(viewport);
    try {
      await page.locator(`[data-testid="part-${USERNAME_PART}"]`).click();
      const options = await page.locator('[data-testid="defence"] option').allInnerTexts();
      assert.deepEqual(options.map((o) => o.trim()).sort(), Object.values(USERNAME_FITTING).sort());
      await page.locator('[data-testid="name-map"]').waitFor();
      for (const defence of ['check_then_act', 'transaction', 'lock_row', 'unique_constraint', 'atomic_update', 'serializable']) {
        const views = modelViews('username', defence);
        await chooseUsername(page, defence);
        for (const want of views) {
          if (want.step > 0) await page.locator('[data-testid="step-next"]').click();
          await page.waitForFunction((c) => document.querySelector('[data-testid="step-count"]')?.textContent.trim() === c, `${want.step} / ${want.steps}`);
          problems.push(...usernameDifferences(`${viewport.width}px username ${defence} step ${want.step}`, await readUsername(page), want));
          seen.twice += want.name.state === 'over' ? 1 : 0;
          seen.creating += want.name.creating.length ? 1 : 0;
          seen.claiming += want.name.claiming ? 1 : 0;
          seen.queue += want.name.queue.length ? 1 : 0;
          seen.lock += want.name.lock ? 1 : 0;
          steps += 1;
        }
      }
      // Check, then act, played to its end: batman created twice, in words beside the colour.
      await chooseUsername(page, 'check_then_act');
      await page.locator('[data-testid="to-end"]').click();
      const name = page.locator('[data-testid="name-batman"]');
      assert.equal(await name.getAttribute('data-state'), 'over');
      assert.match(await name.innerText(), /created twice/);
      assert.match(await name.locator('.counter-amount').innerText(), /^2 accounts$/);
      assert.match(await page.locator('[data-testid="verdict"]').innerText(), /^Created twice: Adam and Omar both have an account named batman/);
      assert.equal(await page.locator('[data-testid="goal"]').getAttribute('data-met'), 'true');
      await page.locator('#stage').screenshot({ path: join(SCREENSHOTS, `shapes-username-end-${viewport.width}.png`) });
      assert.deepEqual(await axe(page), [], `axe on the name created twice at ${viewport.width}px`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
  t.diagnostic(`${steps} username steps checked; ${JSON.stringify(seen)}`);
  // A row lock on a free name locks nothing, so no lock or queue need be seen; and every
  // defence's claim commits on its own (no step shows it uncommitted). The rest must be seen.
  assert.ok(seen.twice > 0 && seen.creating > 0, `each thing the picture draws was checked: ${JSON.stringify(seen)}`);
  assert.deepEqual(problems, []);
});

/** axe-core's serious and critical violations on the page as it stands. */
async function axe(page) {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

test('the picture in its busiest states, at 1280 and 375 px: screenshots, words beside colour, and axe-core', async (t) => {
  for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 800 }]) {
    const { context, page, errors } = await openChapter(viewport);
    try {
      // Two withdrawals that both checked first: the account goes below zero, in words too.
      await choose(page, 'balance', 'transaction');
      const views = modelViews('balance', 'transaction');
      const busy = views.find((v) => v.counters[0].pending && v.counters[0].queue.length) ?? views.find((v) => v.counters[0].pending);
      for (let i = 0; i < busy.step; i += 1) await page.locator('[data-testid="step-next"]').click();
      await page.waitForFunction((c) => document.querySelector('[data-testid="step-count"]')?.textContent.trim() === c, `${busy.step} / ${busy.steps}`);
      const row = page.locator('[data-testid="counter-joint"]');
      assert.match(await row.innerText(), /not committed/);
      await page.locator('#stage').screenshot({ path: join(SCREENSHOTS, `shapes-balance-transaction-pending-${viewport.width}.png`) });
      assert.deepEqual(await axe(page), [], `axe on the pending write at ${viewport.width}px`);
      await page.locator('[data-testid="to-end"]').click();
      assert.equal(await row.getAttribute('data-state'), 'over');
      assert.equal(await row.getAttribute('data-value'), '-50');
      assert.match(await row.innerText(), /overdrawn by \$50/, 'the state in words, not colour alone');
      assert.match(await row.locator('.counter-amount').innerText(), /^\u2212\$50$/);
      assert.match(await page.locator('[data-testid="counter-news"]').innerText(), /Account joint: \u2212\$50, overdrawn by \$50/);
      await page.locator('#stage').screenshot({ path: join(SCREENSHOTS, `shapes-balance-transaction-end-${viewport.width}.png`) });
      await page.screenshot({ path: join(SCREENSHOTS, `shapes-chapter-${viewport.width}.png`), fullPage: false });
      // A row lock and its queue on the last general-admission ticket.
      await choose(page, 'general_admission', 'lock_row');
      const ga = modelViews('general_admission', 'lock_row');
      const queued = ga.find((v) => v.counters[0].queue.length);
      for (let i = 0; i < queued.step; i += 1) await page.locator('[data-testid="step-next"]').click();
      await page.waitForFunction((c) => document.querySelector('[data-testid="step-count"]')?.textContent.trim() === c, `${queued.step} / ${queued.steps}`);
      assert.match(await page.locator('[data-testid="counter-GA"]').innerText(), /waits/);
      await page.locator('#stage').screenshot({ path: join(SCREENSHOTS, `shapes-ga-lock_row-queue-${viewport.width}.png`) });
      assert.deepEqual(await axe(page), [], `axe on the queue at ${viewport.width}px`);
      // The coupon used twice, and the rate limit.
      await choose(page, 'coupon', 'check_then_act');
      await page.locator('[data-testid="to-end"]').click();
      await page.locator('#stage').screenshot({ path: join(SCREENSHOTS, `shapes-coupon-end-${viewport.width}.png`) });
      await choose(page, 'rate_limit', 'atomic_update');
      await page.locator('[data-testid="to-end"]').click();
      await page.locator('#stage').screenshot({ path: join(SCREENSHOTS, `shapes-rate_limit-atomic-end-${viewport.width}.png`) });
      assert.deepEqual(errors, []);
      t.diagnostic(`axe at ${viewport.width}px: no serious or critical violation`);
    } finally {
      await context.close();
    }
  }
});

test('find it for me: the explorer oversells the coupon with check-then-act and never with the atomic write', async () => {
  const { context, page, errors } = await openChapter({ width: 1280, height: 900 });
  try {
    await choose(page, 'coupon', 'check_then_act');
    await page.locator('[data-testid="explore"]').click();
    const report = page.locator('[data-testid="explore-result"]');
    await report.waitFor();
    assert.ok(Number(await report.getAttribute('data-double')) > 0);
    assert.match(await report.innerText(), /orders? oversells?/);
    await page.locator('[data-testid="counterexample"]').click();
    await page.locator('[data-testid="to-end"]').click();
    assert.equal(await page.locator('[data-testid="counter-SAVE50"]').getAttribute('data-state'), 'over');
    assert.match(await page.locator('[data-testid="counter-SAVE50"]').innerText(), /used 2 times/);
    await choose(page, 'coupon', 'atomic_update');
    await page.locator('[data-testid="explore"]').click();
    await report.waitFor();
    assert.equal(Number(await report.getAttribute('data-double')), 0);
    assert.match(await report.innerText(), /None of the \d+ orders oversells/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the matrix puts every defence against a seat and each shape, with the defences that do not fit marked', async () => {
  const { context, page, errors } = await openChapter({ width: 1280, height: 900 });
  try {
    await page.locator('[data-testid="build-matrix"]').click();
    const matrix = page.locator('[data-testid="matrix"]');
    await matrix.waitFor({ timeout: 60_000 });
    const heads = (await matrix.locator('thead th').allInnerTexts()).map((h) => h.trim());
    assert.deepEqual(heads, ['Defence', 'A numbered seat', 'General admission', 'A balance', 'A rate limit', 'A single-use coupon', 'A username']);
    for (const shape of SHAPES) {
      const na = matrix.locator(`[data-testid="matrix-na"][data-defence="unique_constraint"][data-scenario="${shape}"]`);
      assert.equal(await na.count(), 1, `unique constraint does not apply to ${shape}`);
      const bad = matrix.locator(`[data-testid="matrix-cell"][data-defence="check_then_act"][data-scenario="${shape}"]`);
      assert.ok(Number(await bad.getAttribute('data-double')) > 0, `check then act oversells ${shape}`);
      const good = matrix.locator(`[data-testid="matrix-cell"][data-defence="atomic_update"][data-scenario="${shape}"]`);
      assert.equal(await good.getAttribute('data-double'), '0', `the atomic write never oversells ${shape}`);
    }
    assert.equal(await matrix.locator('[data-testid="matrix-na"][data-scenario="seat"]').count(), 0, 'every defence applies to a seat');
    // A username: the unique key fits, the row lock does not stop a name nobody has yet, the
    // claim that does nothing on a conflict never creates it twice.
    const cell = (defence) => matrix.locator(`[data-testid="matrix-cell"][data-defence="${defence}"][data-scenario="username"]`);
    assert.ok(Number(await cell('check_then_act').getAttribute('data-double')) > 0, 'check then act creates batman twice');
    assert.ok(Number(await cell('lock_row').getAttribute('data-double')) > 0, 'a row lock of a free name locks nothing');
    assert.equal(await cell('unique_constraint').getAttribute('data-double'), '0', 'the key of usernames stops the second');
    assert.equal(await cell('atomic_update').getAttribute('data-double'), '0', 'on conflict do nothing stops the second');
    assert.equal(await matrix.locator('[data-testid="matrix-na"][data-defence="lock_nowait"][data-scenario="username"]').count(), 1);
    assert.doesNotMatch(await cell('check_then_act').innerText(), /\b(seat|sold|tickets?)\b/i);
    await matrix.screenshot({ path: join(SCREENSHOTS, 'shapes-matrix.png') });
    // A cell loads its example into the lab, under the chapter's own chooser.
    await matrix.locator('[data-testid="matrix-cell"][data-defence="transaction"][data-scenario="balance"]').click();
    await page.locator('[data-testid="counter-joint"]').waitFor();
    assert.equal(await page.locator('[data-testid="defence"] option:checked').innerText(), 'Transaction');
    // A seat's example opens in the sandbox, from the first bundle: chapter 6's shows no seat.
    const seat = matrix.locator('[data-testid="matrix-cell"][data-defence="hold_confirm"][data-scenario="seat"]');
    assert.match(await seat.innerText(), /open an example in the sandbox/);
    const wasmUrls = [];
    page.on('response', (r) => { if (r.url().endsWith('.wasm')) wasmUrls.push(r.url()); });
    await seat.click();
    await page.waitForURL(/\/chapter\/5\?s=/);
    await page.locator('[data-testid="chapter-5"] [data-testid="seat-map"]').waitFor();
    assert.equal(wasmUrls.length, 1, `one wasm: ${wasmUrls}`);
    assert.doesNotMatch(wasmUrls[0], /\/(shapes|innodb)-page\//, 'the first bundle');
    assert.equal(await page.locator('[data-testid="phone-adam"]').count(), 1, "Adam's phone");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Run on PostgreSQL agrees with the model on a shape', { skip: !EXPECT_POSTGRES && 'EXPECT_POSTGRES is not set' }, async () => {
  const { context, page, errors } = await openChapter({ width: 1280, height: 900 });
  try {
    for (const [shape, defence] of [['balance', 'transaction'], ['general_admission', 'lock_row']]) {
      await choose(page, shape, defence);
      await page.locator('[data-testid="to-end"]').click();
      await page.locator('[data-testid="run-postgres"]:not([disabled])').waitFor({ timeout: 10_000 });
      await page.locator('[data-testid="run-postgres"]').click();
      const result = page.locator('[data-testid="real-result"][data-agree]');
      await result.waitFor({ timeout: 30_000 });
      assert.equal(await result.getAttribute('data-agree'), 'true', await result.innerText());
      await page.locator('.real').screenshot({ path: join(SCREENSHOTS, `shapes-real-${shape}.png`) });
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
