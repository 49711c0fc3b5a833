// Browser tests of the seat map: the states issue 7 saw (a ticket sold under the unique
// constraint, a row lock with an uncommitted write and a queue, a seat sold twice), opened by
// their links at 1280x900 and on a 375 px phone; and every step of every part of chapter 1
// (the family booking holds several seats) on the phone. Each checks what the map says against
// the model's words for that state, that each seat is a labelled element a screen reader
// reaches, that nothing overlaps or scrolls sideways, that no text is under 12 px on the phone,
// that the legend's colours are the ones drawn and that text and edges meet WCAG AA contrast.
// Screenshots go to target/screenshots/seatmap-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, useBrowser } from './browser.mjs';

const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 375, height: 812 } };

const browser = useBrowser();

async function openPath(viewport, path) {
  // Reduced motion: the seats' colours are read at once, not halfway through a transition.
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(new URL(path, BASE_URL).href, { waitUntil: 'load' });
  await page.locator('[data-testid="seat-map"] [role="img"]').first().waitFor({ timeout: 20_000 });
  return { context, page, errors };
}

/** Every seat of the map: its data attributes, role, label and visible text. */
const seats = (page) => page.locator('[data-testid="seat-map"] [data-testid^="seat-"]').evaluateAll((els) =>
  els.map((el) => ({
    id: el.dataset.testid.slice('seat-'.length),
    role: el.getAttribute('role'),
    label: el.getAttribute('aria-label'),
    text: el.innerText.replace(/\s+/g, ' ').trim(),
    ...Object.fromEntries(Object.entries(el.dataset)),
  })));

/** What is wrong with the seat map (and the phones beside it, whose text size is ours too):
 *  sideways overflow, overlapping seats, a seat's text outside it, text under `minPx`, a hidden
 *  badge, legend colours that are not the seats', low contrast. `elsewhere`: what is wrong with
 *  the rest of the page (sideways scroll, small text), which other parts of the page own. */
async function layoutProblems(page, minPx) {
  const { mine, elsewhere } = await page.evaluate((minPx) => {
    const problems = [];
    const elsewhere = [];
    const map = document.querySelector('[data-testid="seat-map"]');
    const ours = (el) => el.closest('[data-testid="seat-map"], .phones');
    const overflow = document.documentElement.scrollWidth - window.innerWidth;
    if (overflow > 0) {
      const wide = [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5);
      const culprits = wide.filter((el) => !wide.includes(el.parentElement)).map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
      elsewhere.push(`the page scrolls ${overflow} px sideways: ${culprits.join(', ')}`);
    }
    const m = map.getBoundingClientRect();
    if (m.left < -0.5 || m.right > window.innerWidth + 0.5 || map.scrollWidth > map.clientWidth + 0.5) {
      problems.push(`the seat map is wider than the page (${m.left}..${m.right}, scroll ${map.scrollWidth} in ${map.clientWidth})`);
    }
    const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    // Text under minPx anywhere on the page.
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const small = new Set();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || !el || !visible(el) || el.closest('option, script, style')) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (size < minPx) {
        const what = `text under ${minPx} px: ${el.tagName.toLowerCase()}.${el.className} "${n.textContent.trim().slice(0, 30)}" ${size}px`;
        if (ours(el)) problems.push(what); else small.add(what);
      }
    }
    elsewhere.push(...[...small].slice(0, 10));
    // Seats never overlap, and all they show lies inside them.
    const seatEls = [...document.querySelectorAll('[data-testid="seat-map"] [role="img"]')];
    const boxes = seatEls.map((el) => el.getBoundingClientRect());
    boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b, j) => {
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
        problems.push(`seats ${seatEls[i].dataset.testid} and ${seatEls[i + 1 + j].dataset.testid} overlap`);
      }
    }));
    seatEls.forEach((el, i) => {
      for (const child of el.querySelectorAll('*')) {
        const r = child.getBoundingClientRect();
        const b = boxes[i];
        if (r.width && (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5)) {
          problems.push(`${el.dataset.testid}: "${child.textContent.trim().slice(0, 20)}" sticks out`);
        }
      }
      // The badge is drawn on top, where one can see it.
      const badge = el.querySelector('.seat-badge');
      if (badge) {
        badge.scrollIntoView({ block: 'center' });
        const r = badge.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!badge.contains(hit)) problems.push(`${el.dataset.testid}: its badge is covered by ${hit?.className}`);
      }
    });
    // Colours: WCAG relative luminance of an rgb() string.
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => {
      const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const surface = getComputedStyle(document.querySelector('[data-testid="seat-map"]')).backgroundColor;
    for (const el of seatEls) {
      const s = getComputedStyle(el);
      const state = [...el.classList].find((c) => c.startsWith('st-'));
      const key = document.querySelector(`[data-testid="legend"] .key.${state}`);
      if (!key) { problems.push(`the legend has no key for ${state}`); continue; }
      const k = getComputedStyle(key, '::before');
      if (k.backgroundColor !== s.backgroundColor || k.borderTopColor !== s.borderTopColor) {
        problems.push(`${el.dataset.testid}: drawn ${s.backgroundColor}/${s.borderTopColor}, legend ${k.backgroundColor}/${k.borderTopColor}`);
      }
      if (ratio(s.borderTopColor, surface) < 3) problems.push(`${el.dataset.testid}: its edge is ${ratio(s.borderTopColor, surface).toFixed(2)}:1`);
      for (const t of el.querySelectorAll('span')) {
        if (!t.childNodes.length || ![...t.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
        let bg = 'rgba(0, 0, 0, 0)';
        for (let p = t; p && /rgba\(.*, 0\)|transparent/.test(bg); p = p.parentElement) bg = getComputedStyle(p).backgroundColor;
        const c = ratio(getComputedStyle(t).color, bg);
        if (c < 4.5) problems.push(`${el.dataset.testid}: "${t.textContent.trim()}" is ${c.toFixed(2)}:1`);
      }
    }
    return { mine: problems, elsewhere };
  }, minPx);
  return { mine, elsewhere };
}

/** Asserts that the seat map has no problem, and reports those of the rest of the page. */
async function assertLayout(page, minPx, elsewhere, where = '') {
  const found = await layoutProblems(page, minPx);
  for (const e of found.elsewhere) elsewhere.add(e);
  assert.deepEqual(found.mine, [], where);
}

/** Reports, once per test, what is wrong elsewhere on the page. */
function report(t, elsewhere) {
  for (const e of elsewhere) t.diagnostic(`elsewhere on the page: ${e}`);
}

const STATES = [
  {
    name: 'lock-queue-uncommitted',
    path: '/chapter/1?s=1.1.ch1-second-request-waits.0010.3',
    check(all) {
      const a12 = all.find((s) => s.id === 'A12');
      assert.equal(a12.status, 'free', 'nothing is committed yet');
      assert.equal(a12.lock, 'first');
      assert.equal(a12.queue, 'second');
      assert.equal(a12.pending, 'first');
      assert.equal(a12.pendingStatus, 'HELD');
      assert.match(a12.text, /First/);
      assert.match(a12.text, /Second waits/);
      assert.match(a12.text, /First writing HELD, not committed/);
      assert.equal(a12.label, 'Seat A12: free; First holds its row lock in an open transaction; Second waits for it; '
        + 'First has written HELD and not committed: nobody else sees it yet.');
    },
  },
  {
    name: 'unique-ticket-sold',
    path: '/chapter/4?s=1.4.ch4-unique_constraint.0101.4',
    check(all) {
      const [seat] = all;
      assert.equal(seat.status, 'booked', 'a seat with a ticket reads sold');
      assert.equal(seat.stored, 'AVAILABLE', 'the unique-constraint defence never updates the row');
      assert.equal(seat.tickets.split(',').length, 1);
      assert.match(seat.text, /sold/);
      assert.match(seat.text, /the row still says AVAILABLE/);
      assert.match(seat.label, /its ticket is stored in booking_seats, but the seat row still says AVAILABLE/);
    },
  },
  {
    name: 'sold-twice',
    path: '/chapter/4?s=1.4.ch4-check_then_act.0101.4',
    check(all) {
      const [seat] = all;
      assert.equal(seat.told, 'adam,omar');
      assert.equal(seat.double, 'true');
      assert.match(seat.text, /sold twice/);
      assert.match(seat.text, /Adam and Omar/);
      assert.match(seat.text, /×2/);
      assert.match(seat.label, /Adam and Omar were each told it is theirs/);
    },
  },
];

for (const state of STATES) {
  for (const [vp, viewport] of Object.entries(VIEWPORTS)) {
    test(`the seat map shows ${state.name} at ${viewport.width} px`, async (t) => {
      const { context, page, errors } = await openPath(viewport, state.path);
      try {
        const all = await seats(page);
        for (const s of all) {
          assert.equal(s.role, 'img', `${s.id} is one labelled element`);
          assert.ok(s.label.startsWith(`Seat ${s.id}: `), s.label);
        }
        state.check(all);
        if (state.name === 'sold-twice') {
          const badge = page.locator('[data-testid^="badge-"]').first();
          assert.ok(await badge.isVisible(), 'the ×2 badge is visible');
        }
        const elsewhere = new Set();
        await assertLayout(page, vp === 'phone' ? 12 : 0, elsewhere);
        report(t, elsewhere);
        await page.locator('[data-testid="seat-map"]').screenshot({ path: join(SCREENSHOTS, `seatmap-${state.name}-${vp}.png`) });
        await page.screenshot({ path: join(SCREENSHOTS, `seatmap-${state.name}-${vp}-page.png`) });
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }
}

test('every step of every part of chapter 1 on a 375 px phone: seats labelled, nothing overlaps, no small text', async (t) => {
  const { context, page, errors } = await openPath(VIEWPORTS.phone, '/chapter/1');
  try {
    const parts = await page.locator('[data-testid^="part-"]').count();
    let steps = 0;
    let locked = 0;
    const elsewhere = new Set();
    let mostLocked = 0;
    for (let p = 0; p < parts; p++) {
      await page.locator(`[data-testid="part-${p}"]`).click();
      const variants = await page.locator('[data-testid="defence"] option').count();
      for (let v = 0; v < Math.max(variants, 1); v++) {
        if (variants > 1) await page.locator('[data-testid="defence"]').selectOption(String(v));
        await page.locator('[data-testid="reset"]').click();
        for (;;) {
          const where = `part ${p}, variant ${v}, ${(await page.locator('[data-testid="step-count"]').innerText()).trim()}`;
          for (const s of await seats(page)) {
            assert.equal(s.role, 'img', where);
            assert.ok(s.label.startsWith(`Seat ${s.id}: `), `${where}: ${s.label}`);
            if (s.lock) {
              locked++;
              assert.match(s.label, new RegExp(`holds its row lock`), `${where}: ${s.label}`);
            }
            for (const who of s.queue ? s.queue.split(',') : []) {
              assert.ok(s.label.toLowerCase().includes(who), `${where}: ${who} waits: ${s.label}`);
            }
          }
          await assertLayout(page, 12, elsewhere, where);
          steps++;
          const lockedNow = await page.locator('[data-testid="seat-map"] [data-lock]:not([data-lock=""])').count();
          if (lockedNow > mostLocked) {
            mostLocked = lockedNow;
            await page.locator('[data-testid="seat-map"]').screenshot({ path: join(SCREENSHOTS, 'seatmap-chapter-1-most-locked-phone.png') });
          }
          const [at, of] = (await page.locator('[data-testid="step-count"]').innerText()).split('/').map((x) => Number(x.trim()));
          if (at >= of) break;
          await page.locator('[data-testid="step-next"]').click();
          await page.waitForFunction((n) => Number(document.querySelector('[data-testid="step-count"]').textContent.split('/')[0]) === n, at + 1);
        }
      }
    }
    t.diagnostic(`${steps} steps checked, ${locked} seats drawn locked`);
    report(t, elsewhere);
    assert.ok(steps > 20 && locked > 0, `${steps} steps, ${locked} locked seats`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
