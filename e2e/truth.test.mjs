// One truth on every surface: for every built-in scenario of the chapters and every step of the
// order the page plays, what each phone says, what the seat map shows and what the verdict and
// the step line say are exactly what the model says at that step. The model's view comes from
// `backend views` (the same shared::view code the page renders, run natively); the test fails
// if the page shows a phone, a seat attribute (or a counter's, on a counter scenario) or a
// sentence that the dump does not.
//
// BASE_URL names a running server; BACKEND_BIN the backend binary (default: the debug build).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { BASE_URL, SCREENSHOTS, TARGET, launch } from './browser.mjs';

const BACKEND = process.env.BACKEND_BIN || resolve(TARGET, 'debug', 'backend');

let browser;
let views;

before(async () => {
  assert.ok(BASE_URL, 'set BASE_URL to the address of a running Last Seat server');
  assert.ok(existsSync(BACKEND), `no backend binary at ${BACKEND}: cargo build -p backend, or set BACKEND_BIN`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  const dump = execFileSync(BACKEND, ['views'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  views = dump.trim().split('\n').map((line) => JSON.parse(line));
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** A list attribute as a sorted list of lowercase words ("adam omar", "adam,omar"). */
const words = (value) => (value ?? '').toLowerCase().split(/[\s,]+/).filter(Boolean).sort();
/** A dump value as the same sorted list of lowercase words. */
const dumpWords = (value) => words(Array.isArray(value) ? value.join(' ') : value == null ? '' : String(value));

/** How the map may draw a stored status: its own word, or sold once a ticket exists. */
function statusOk(shown, seat) {
  const stored = { AVAILABLE: 'free', HELD: 'held', BOOKED: 'booked' }[seat.status];
  if (shown === stored || shown === seat.status.toLowerCase()) return true;
  return seat.tickets.length > 0 && ['booked', 'sold'].includes(shown);
}

/** Everything the page shows at the playhead, read in one go. */
async function readPage(page) {
  return page.evaluate(() => {
    const text = (el) => (el ? el.textContent.trim().replace(/\s+/g, ' ') : null);
    const phones = [...document.querySelectorAll('[data-testid^="phone-"]')]
      .filter((el) => el.matches('li'))
      .map((el) => {
        const name = el.dataset.testid.slice('phone-'.length);
        return {
          name,
          text: text(el.querySelector(`[data-testid="phone-text-${name}"]`)),
          tone: el.dataset.tone,
          yours: el.dataset.yours ?? '',
          until: el.dataset.until ?? null,
        };
      });
    const seats = [...document.querySelectorAll('[data-testid^="seat-"]')]
      .filter((el) => el.dataset.testid !== 'seat-map')
      .map((el) => ({ id: el.dataset.testid.slice('seat-'.length), data: { ...el.dataset } }));
    const counters = [...document.querySelectorAll('.counter[data-testid^="counter-"]')]
      .map((el) => ({ id: el.dataset.testid.slice('counter-'.length), data: { ...el.dataset }, label: el.getAttribute('aria-label') }));
    const names = [...document.querySelectorAll('.counter[data-testid^="name-"]')]
      .map((el) => ({ id: el.dataset.testid.slice('name-'.length), data: { ...el.dataset }, label: el.getAttribute('aria-label') }));
    const panel = document.querySelector('[data-testid="verdict-panel"]');
    const goal = document.querySelector('[data-testid="goal"]');
    return {
      count: text(document.querySelector('[data-testid="step-count"]')),
      phones,
      seats,
      counters,
      names,
      headline: text(document.querySelector('[data-testid="verdict"]')),
      story: [...document.querySelectorAll('[data-testid="story"] li')].map(text),
      decided: panel?.dataset.decided ?? null,
      bad: panel?.dataset.bad ?? null,
      goalMet: goal?.dataset.met ?? null,
      reason: text(document.querySelector('[data-testid="reason"]')),
    };
  });
}

/** Where the page and the model's view of one step differ; empty when they agree. */
function differences(shown, want) {
  const out = [];
  const at = `${want.scenario} step ${want.step}`;
  const wantPhones = new Map(want.phones.map((p) => [p.name, p]));
  for (const p of shown.phones) {
    const w = wantPhones.get(p.name);
    if (!w) { out.push(`${at}: a phone for ${p.name}, who is not a buyer`); continue; }
    if (p.text !== w.text) out.push(`${at}: ${p.name}'s phone says ${JSON.stringify(p.text)}, the model ${JSON.stringify(w.text)}`);
    if (p.tone !== w.tone) out.push(`${at}: ${p.name}'s phone is ${p.tone}, the model says ${w.tone}`);
    if (words(p.yours).join() !== dumpWords(w.yours).join()) out.push(`${at}: ${p.name}'s phone calls [${p.yours}] theirs, the model [${w.yours}]`);
    if ((p.until ?? null) !== (w.until == null ? null : String(w.until))) out.push(`${at}: ${p.name}'s deadline ${p.until}, the model ${w.until}`);
  }
  for (const name of wantPhones.keys()) {
    if (!shown.phones.some((p) => p.name === name)) out.push(`${at}: no phone for ${name}`);
  }
  // A counter scenario draws its own picture in place of the seat map: its rows, each as the
  // model's view says, and no seat.
  const wantCounters = new Map((want.counters ?? []).map((c) => [c.id, c]));
  for (const row of shown.counters) {
    const w = wantCounters.get(row.id);
    if (!w) { out.push(`${at}: counter ${row.id} is not in the model's picture`); continue; }
    for (const [key, value] of Object.entries(row.data)) {
      if (key === 'testid') continue;
      if (!(key in w)) { out.push(`${at}: ${row.id} shows data-${key}=${value}, which the model's view does not have`); continue; }
      if (words(value).join() !== dumpWords(w[key]).join()) out.push(`${at}: ${row.id} data-${key}=${JSON.stringify(value)}, the model ${JSON.stringify(w[key])}`);
    }
    if (row.label !== w.sentence) out.push(`${at}: ${row.id} is announced as ${JSON.stringify(row.label)}, the model says ${JSON.stringify(w.sentence)}`);
  }
  if (shown.counters.length !== wantCounters.size) out.push(`${at}: ${shown.counters.length} counters drawn, ${wantCounters.size} in the model`);
  // A username draws its own picture too: the name, as the model's view says, and no seat.
  const wantNames = want.name ? [want.name] : [];
  for (const row of shown.names) {
    const w = wantNames.find((n) => n.id === row.id);
    if (!w) { out.push(`${at}: name ${row.id} is not in the model's picture`); continue; }
    for (const [key, value] of Object.entries(row.data)) {
      if (key === 'testid') continue;
      if (!(key in w)) { out.push(`${at}: ${row.id} shows data-${key}=${value}, which the model's view does not have`); continue; }
      if (words(value).join() !== dumpWords(w[key]).join()) out.push(`${at}: ${row.id} data-${key}=${JSON.stringify(value)}, the model ${JSON.stringify(w[key])}`);
    }
    if (row.label !== w.sentence) out.push(`${at}: ${row.id} is announced as ${JSON.stringify(row.label)}, the model says ${JSON.stringify(w.sentence)}`);
  }
  if (shown.names.length !== wantNames.length) out.push(`${at}: ${shown.names.length} names drawn, ${wantNames.length} in the model`);
  const wantSeats = new Map((wantCounters.size ? [] : want.seats).map((s) => [s.id, s]));
  for (const seat of shown.seats) {
    const w = wantSeats.get(seat.id);
    if (!w) { out.push(`${at}: seat ${seat.id} is not in the scenario`); continue; }
    for (const [key, value] of Object.entries(seat.data)) {
      if (key === 'testid') continue;
      if (key === 'status') {
        if (!statusOk(value, w)) out.push(`${at}: ${seat.id} drawn ${value}, stored ${w.status} with tickets [${w.tickets}]`);
        continue;
      }
      if (!(key in w)) { out.push(`${at}: ${seat.id} shows data-${key}=${value}, which the model's view does not have`); continue; }
      if (words(value).join() !== dumpWords(w[key]).join()) out.push(`${at}: ${seat.id} data-${key}=${JSON.stringify(value)}, the model ${JSON.stringify(w[key])}`);
    }
  }
  if (shown.seats.length !== wantSeats.size) out.push(`${at}: ${shown.seats.length} seats drawn, ${wantSeats.size} in the model`);
  const v = want.verdict;
  if (shown.headline !== v.headline) out.push(`${at}: the verdict says ${JSON.stringify(shown.headline)}, the model ${JSON.stringify(v.headline)}`);
  if (JSON.stringify(shown.story) !== JSON.stringify(v.story)) out.push(`${at}: the story differs:\n  page  ${JSON.stringify(shown.story)}\n  model ${JSON.stringify(v.story)}`);
  if (shown.decided !== String(v.decided)) out.push(`${at}: decided=${shown.decided}, the model ${v.decided}`);
  if (shown.bad !== String(v.bad)) out.push(`${at}: bad=${shown.bad}, the model ${v.bad}`);
  if (want.goal && shown.goalMet !== String(want.goal.met)) out.push(`${at}: goal met=${shown.goalMet}, the model ${want.goal.met}`);
  const reason = want.step === 0 ? null : `Step ${want.step}: ${want.reason}`;
  if (reason !== null && shown.reason !== reason) out.push(`${at}: the step line says ${JSON.stringify(shown.reason)}, the model ${JSON.stringify(reason)}`);
  return out;
}

test('every phone, seat and verdict of every built-in at every step is what the model says', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  const scenarios = [...new Set(views.filter((v) => v.link).map((v) => v.scenario))];
  assert.ok(scenarios.length >= 20, `${scenarios.length} built-ins in the dump`);
  const problems = [];
  let checked = 0;
  try {
    for (const id of scenarios) {
      const steps = views.filter((v) => v.scenario === id).sort((a, b) => a.step - b.step);
      await page.goto(new URL(steps[0].link, BASE_URL).href, { waitUntil: 'load' });
      await page.locator('[data-testid="timeline"]').waitFor({ timeout: 20_000 });
      for (const want of steps) {
        if (want.step > 0) await page.locator('[data-testid="step-next"]').click();
        await page.waitForFunction(
          (count) => document.querySelector('[data-testid="step-count"]')?.textContent.trim() === count,
          `${want.step} / ${want.steps}`,
          { timeout: 10_000 },
        );
        const shown = await readPage(page);
        const found = differences(shown, want);
        if (found.length && !problems.length) {
          await page.screenshot({ path: resolve(SCREENSHOTS, `truth-${id}-${want.step}.png`), fullPage: true });
        }
        problems.push(...found);
        checked += 1;
      }
    }
  } finally {
    await context.close();
  }
  assert.deepEqual(errors, [], 'no uncaught errors');
  assert.ok(checked >= 100, `${checked} steps checked`);
  assert.deepEqual(problems, [], `${problems.length} differences between the page and the model`);
});
