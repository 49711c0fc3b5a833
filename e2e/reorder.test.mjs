// Browser tests of reordering and navigation: dragging a step with a finger (real touch events
// on an emulated phone), the Earlier / Later buttons, a drop into an empty cell and its
// indicator, refusals in words, "fork from here" greying out a waiting buyer, Back restoring
// the previous order, undoing a defence switch, the document titles, the layout that keeps the
// seat map and the timeline on one screen, and presenter mode. BASE_URL names a running server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, useBrowser } from './browser.mjs';

const PHONE = { viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

const browser = useBrowser();

/** Opens a chapter with the given context options; records page errors. */
async function openChapter(n, options = { viewport: { width: 1280, height: 900 } }, query = '') {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (m) => { if (m.type() === 'error' && !m.location().url.endsWith('/api/health')) errors.push(m.text()); });
  await page.goto(new URL(`/chapter/${n}${query}`, BASE_URL).href, { waitUntil: 'load' });
  await page.locator('[data-testid="timeline"]').waitFor({ timeout: 20_000 });
  return { context, page, errors };
}

const who = (page) => page.locator('.tl-event').evaluateAll((events) =>
  events.sort((a, b) => Number(a.dataset.testid.split('-')[1]) - Number(b.dataset.testid.split('-')[1]))
    .map((e) => e.dataset.actor));
const notice = async (page) => (await page.locator('[data-testid="notice"]').innerText()).replace(/×\s*$/, '').trim();
const centre = async (locator) => {
  const box = await locator.boundingBox();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
};

/** Drags with one finger from `from` to `to` in real touch events (CDP), in small moves; calls
 *  `during` before lifting it. */
async function touchDrag(page, from, to, during) {
  const cdp = await page.context().newCDPSession(page);
  const point = (p) => [{ x: p.x, y: p.y, id: 1, radiusX: 4, radiusY: 4, force: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: point(from) });
  const steps = 12;
  for (let i = 1; i <= steps; i++) {
    const p = { x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps };
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: point(p) });
  }
  if (during) await during();
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** Whether the element's box lies inside the viewport (fully, or at least `part` of its width). */
const inViewport = (locator) => locator.evaluate((e) => {
  const r = e.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, inside: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth };
});
const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test('on a phone a finger drags Omar\'s read into the empty cell after Adam\'s write, with a drop indicator', async () => {
  const { context, page, errors } = await openChapter(4, PHONE);
  try {
    assert.deepEqual(await who(page), ['adam', 'omar', 'adam', 'omar']);
    await page.locator('[data-testid="event-1"]').scrollIntoViewIfNeeded();
    const from = await centre(page.locator('[data-testid="event-1"]'));
    // Column 3 (index 2) of Omar's lane is empty: Adam's write is there, in his own lane.
    const column = await centre(page.locator('.tl-step[data-index="2"]'));
    let indicator;
    await touchDrag(page, from, { x: column.x, y: from.y }, async () => {
      const drop = page.locator('[data-testid="drop-indicator"]');
      await drop.waitFor();
      indicator = { column: await drop.getAttribute('data-column'), allowed: await drop.getAttribute('data-allowed'), text: (await drop.innerText()).trim() };
      await page.screenshot({ path: join(SCREENSHOTS, 'reorder-touch-drag-375.png') });
    });
    assert.deepEqual(indicator, { column: '2', allowed: 'true', text: 'drop here' });
    assert.equal(await page.locator('[data-testid="drop-indicator"]').count(), 0, 'the indicator goes when the finger lifts');
    assert.deepEqual(await who(page), ['adam', 'adam', 'omar', 'omar']);
    await page.locator('[data-testid="to-end"]').tap();
    assert.match(await page.locator('[data-testid="verdict"]').innerText(), /sold out/i);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('on a phone, a tap selects a step and the Earlier / Later buttons move it', async () => {
  const { context, page, errors } = await openChapter(4, PHONE);
  try {
    await page.locator('[data-testid="event-1"]').scrollIntoViewIfNeeded();
    await page.locator('[data-testid="event-1"]').tap();
    assert.match(await page.locator('[data-testid="selected-step"]').innerText(), /Step 2 · Omar · read A7/);
    await page.locator('[data-testid="later"]').tap();
    assert.deepEqual(await who(page), ['adam', 'adam', 'omar', 'omar']);
    assert.match(await page.locator('[data-testid="selected-step"]').innerText(), /Step 3 · Omar · read A7/);
    await page.screenshot({ path: join(SCREENSHOTS, 'reorder-buttons-375.png') });
    await page.locator('[data-testid="earlier"]').tap();
    assert.deepEqual(await who(page), ['adam', 'omar', 'adam', 'omar']);
    // Omar's read cannot pass Omar's own write: refused in a sentence, the order unchanged.
    await page.locator('[data-testid="later"]').tap();
    await page.locator('[data-testid="later"]').tap();
    assert.equal(await notice(page), 'Omar\'s own steps keep their order: a program runs one statement after another.');
    assert.deepEqual(await who(page), ['adam', 'adam', 'omar', 'omar']);
    assert.equal(await sideways(page), 0, 'no sideways scrolling of the page');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a mouse drag shows a refused drop and leaves the order alone; an allowed one into an empty cell moves', async () => {
  const { context, page, errors } = await openChapter(4);
  try {
    await page.locator('.timeline-section').scrollIntoViewIfNeeded();
    const from = await centre(page.locator('[data-testid="event-0"]'));
    const third = await centre(page.locator('.tl-step[data-index="2"]'));
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(third.x, from.y, { steps: 10 });
    const drop = page.locator('[data-testid="drop-indicator"]');
    assert.equal(await drop.getAttribute('data-allowed'), 'false', 'Adam\'s read cannot pass his own write');
    assert.match(await drop.getAttribute('title'), /^Adam's own steps keep their order/);
    await page.screenshot({ path: join(SCREENSHOTS, 'reorder-refused-drop.png') });
    await page.mouse.up();
    assert.match(await notice(page), /^Adam's own steps keep their order/);
    assert.deepEqual(await who(page), ['adam', 'omar', 'adam', 'omar']);
    // Adam's lane is empty in column 2 (Omar reads there): drop his read into it.
    const second = await centre(page.locator('.tl-step[data-index="1"]'));
    const again = await centre(page.locator('[data-testid="event-0"]'));
    await page.mouse.move(again.x, again.y);
    await page.mouse.down();
    await page.mouse.move(second.x, again.y, { steps: 10 });
    assert.equal(await drop.getAttribute('data-allowed'), 'true');
    await page.mouse.up();
    assert.deepEqual(await who(page), ['omar', 'adam', 'adam', 'omar']);
    assert.equal(await page.locator('[data-testid="event-1"]').getAttribute('aria-pressed'), 'true', 'the moved step stays selected');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/** Chapter 4 under a row lock, with the playhead just after the first step that waits. */
async function rowLockAtTheWait(page) {
  await page.locator('[data-testid="defence"]').selectOption({ label: 'Row lock' });
  const n = await page.locator('.tl-event').count();
  for (let k = 0; k < n; k++) {
    await page.locator(`.tl-step[data-index="${k}"]`).click();
    if (await page.locator(`[data-testid="event-${k}"].tl-waiting`).count()) {
      return { index: k, waiter: await page.locator(`[data-testid="event-${k}"]`).getAttribute('data-actor') };
    }
  }
  throw new Error('under a row lock the second buyer waits');
}

test('fork from here greys out the waiting buyer\'s next step and says whom they wait for', async () => {
  const { context, page, errors } = await openChapter(4);
  try {
    const { index, waiter } = await rowLockAtTheWait(page);
    const blocker = waiter === 'omar' ? 'Adam' : 'Omar';
    await page.locator('[data-testid="fork"]').click();
    assert.equal(await page.locator('.tl-event').count(), index + 1, 'the future is dropped');
    const waiting = page.locator(`[data-testid="next-${waiter}"]`);
    assert.ok(await waiting.isDisabled(), 'the waiting buyer cannot be sent');
    assert.match(await waiting.innerText(), new RegExp(`waits for ${blocker}`));
    const other = page.locator(`[data-testid="next-${blocker.toLowerCase()}"]`);
    assert.ok(await other.isEnabled());
    await page.screenshot({ path: join(SCREENSHOTS, 'fork-waiting-greyed.png') });
    await other.click();
    assert.equal(await page.locator('.tl-event').count(), index + 2);
    assert.equal(await page.locator('[data-testid="notice"]').count(), 0, 'an offered step is always allowed');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('moving a waiting buyer\'s step before its blocker lets go is refused in a sentence', async () => {
  const { context, page } = await openChapter(4);
  try {
    const { index, waiter } = await rowLockAtTheWait(page);
    const order = await who(page);
    const next = order.findIndex((a, i) => i > index && a === waiter);
    await page.locator(`[data-testid="event-${next}"]`).click();
    for (let i = next; i > index + 1; i--) await page.keyboard.press('[');
    const said = await notice(page);
    assert.doesNotMatch(said, /order\[|entry \d/, said);
    assert.match(said, /^(Adam|Omar) cannot go at step \d+: .* still waits for (Adam|Omar), and .* can send nothing until .* commits or rolls back\.$/, said);
  } finally {
    await context.close();
  }
});

test('Back returns to the previous order and defence; a defence switch offers undo', async () => {
  const { context, page, errors } = await openChapter(4);
  const order = (p) => p.locator('.tl-event').evaluateAll((events) => events.map((e) => e.dataset.actor).join());
  const waitOrder = (expected) => page.waitForFunction((s) => [...document.querySelectorAll('.tl-event')]
    .sort((a, b) => Number(a.dataset.testid.split('-')[1]) - Number(b.dataset.testid.split('-')[1]))
    .map((e) => e.dataset.actor).join() === s, expected.join());
  try {
    const start = await who(page);
    await page.locator('[data-testid="event-1"]').click();
    await page.keyboard.press(']');
    const moved = await who(page);
    assert.notDeepEqual(moved, start);
    // Stepping replaces the history entry rather than adding one.
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Atomic write' });
    assert.match(await page.title(), /Atomic write/);
    await page.goBack();
    await page.waitForFunction(() => document.querySelector('[data-testid="defence"] option:checked')?.textContent === 'Check, then act');
    assert.deepEqual(await who(page), moved, 'Back restores the order before the switch');
    assert.equal((await page.locator('[data-testid="step-count"]').innerText()).trim(), '3 / 4', 'and where the playhead was');
    await page.goBack();
    await waitOrder(start);
    assert.match(page.url(), /\/chapter\/4\?s=/, 'once more: the order before the move, still in the chapter');
    await page.goForward();
    await waitOrder(moved);
    // A switch that replaces the reader's own order offers it back.
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Atomic write' });
    assert.match(await page.locator('[data-testid="undo-offer"]').innerText(), /^Switched to Atomic write: your order was replaced by its own steps\./);
    await page.locator('[data-testid="undo"]').click();
    assert.deepEqual(await who(page), moved);
    assert.equal(await page.locator('[data-testid="defence"] option:checked').innerText(), 'Check, then act');
    assert.equal(await page.locator('[data-testid="undo-offer"]').count(), 0);
    // The default order of a defence is nothing to undo.
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Transaction' });
    await page.locator('[data-testid="undo-offer"]').waitFor();
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Row lock' });
    assert.equal(await page.locator('[data-testid="undo-offer"]').count(), 0);
    assert.ok((await order(page)).length > 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('every chapter and part has a document title of its own', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(new URL('/', BASE_URL).href);
    await page.locator('[data-testid="chapters"]').waitFor();
    assert.equal(await page.title(), 'Last Seat');
    await page.goto(new URL('/chapter/4', BASE_URL).href);
    await page.locator('[data-testid="timeline"]').waitFor();
    assert.equal(await page.title(), 'Chapter 4: Who sold my seat twice? · Two requests, one seat: Check, then act · Last Seat');
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Serializable' });
    assert.equal(await page.title(), 'Chapter 4: Who sold my seat twice? · Two requests, one seat: Serializable · Last Seat');
    const titles = new Set();
    for (const n of [1, 2, 3, 4, 5, 6]) {
      await page.goto(new URL(`/chapter/${n}`, BASE_URL).href);
      await page.locator('[data-testid="timeline"]').waitFor();
      const heading = (await page.locator('[data-testid="chapter-title"]').innerText()).trim();
      const parts = await page.locator('[data-testid^="part-"]').count();
      for (let p = 0; p < Math.max(parts, 1); p++) {
        if (parts) await page.locator(`[data-testid="part-${p}"]`).click();
        const title = await page.title();
        assert.ok(title.startsWith(`Chapter ${n}: ${heading}`) && title.endsWith(' · Last Seat'), title);
        titles.add(title);
      }
    }
    assert.ok(titles.size >= 8, `a title per part: ${[...titles].join(' | ')}`);
    await page.goto(new URL('/nowhere', BASE_URL).href);
    await page.locator('[data-testid="not-found"]').waitFor();
    assert.equal(await page.title(), 'Nothing here · Last Seat');
  } finally {
    await context.close();
  }
});

/** Checks that the seat map, the phones, the step line and the playhead are on screen together
 *  once the stage is brought into view, and that the page does not scroll sideways. */
async function causeAndEffect(page, name) {
  await page.evaluate(() => document.getElementById('stage').scrollIntoView({ block: 'start' }));
  const parts = { map: '[data-testid="seat-map"]', phones: '.cockpit-phones', playhead: '.tl-playhead', reason: '[data-testid="reason"]' };
  const seen = {};
  for (const [part, selector] of Object.entries(parts)) seen[part] = await inViewport(page.locator(selector).first());
  for (const [part, box] of Object.entries(seen)) assert.ok(box.inside, `${name}: ${part} is off screen: ${JSON.stringify(box)}`);
  assert.equal(await sideways(page), 0, `${name}: the page scrolls sideways`);
  await page.screenshot({ path: join(SCREENSHOTS, `layout-${name}.png`) });
}

for (const viewport of [{ width: 1280, height: 900 }, { width: 1920, height: 1080 }]) {
  test(`at ${viewport.width}x${viewport.height} the map, the phones, the step line and the timeline share one screen`, async () => {
    const { context, page, errors } = await openChapter(4, { viewport });
    try {
      // An 8-step run (a transaction each) fits without scrolling the timeline.
      await page.locator('[data-testid="defence"]').selectOption({ label: 'Transaction' });
      assert.equal((await page.locator('[data-testid="step-count"]').innerText()).trim(), '0 / 8');
      for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
      const fits = await page.locator('.timeline-scroll').evaluate((e) => e.scrollWidth - e.clientWidth);
      assert.ok(fits <= 0, `the 8-step timeline overflows by ${fits} px`);
      await causeAndEffect(page, `ch4-${viewport.width}`);
      // Three buyers, a clock and the payment provider: chapter 3.
      await page.goto(new URL('/chapter/3', BASE_URL).href);
      await page.locator('[data-testid="timeline"]').waitFor();
      await page.locator('[data-testid="to-end"]').click();
      await causeAndEffect(page, `ch3-${viewport.width}`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test('on a 375 px phone the compact map stays on screen above the timeline\'s playhead', async () => {
  const { context, page, errors } = await openChapter(4, PHONE);
  try {
    await page.locator('[data-testid="defence"]').selectOption({ label: 'Transaction' });
    for (let i = 0; i < 7; i++) await page.locator('[data-testid="step-next"]').tap();
    await page.locator('.timeline-section').evaluate((e) => e.scrollIntoView({ block: 'end' }));
    const map = await inViewport(page.locator('[data-testid="seat-map"]'));
    const playhead = await inViewport(page.locator('.tl-playhead'));
    assert.ok(map.inside, `the map is off screen: ${JSON.stringify(map)}`);
    assert.ok(playhead.inside, `the playhead (after step 7 of 8) is off screen: ${JSON.stringify(playhead)}`);
    assert.ok(playhead.top >= map.bottom - 1, 'the map does not cover the playhead');
    assert.equal(await sideways(page), 0);
    await page.screenshot({ path: join(SCREENSHOTS, 'layout-ch4-375.png') });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('"Show me a double booking" brings the loaded run into view', async () => {
  const { context, page, errors } = await openChapter(4);
  try {
    await page.locator('[data-testid="explore"]').click();
    await page.locator('[data-testid="counterexample"]').click();
    await page.waitForFunction(() => {
      const r = document.querySelector('[data-testid="seat-map"]').getBoundingClientRect();
      return r.top >= 0 && r.bottom <= innerHeight;
    }, null, { timeout: 5_000 });
    assert.ok((await inViewport(page.locator('.tl-playhead'))).inside);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('presenter mode: large type, no prose, the map, phones, step line, timeline and verdict on a projector', async () => {
  const { context, page, errors } = await openChapter(3, { viewport: { width: 1920, height: 1080 } });
  try {
    await page.locator('[data-testid="presenter"]').click();
    assert.match(page.url(), /[?&]present=1/);
    assert.equal(await page.locator('[data-testid="presenter"]').getAttribute('aria-pressed'), 'true');
    await page.locator('[data-testid="to-end"]').click();
    assert.equal(await page.locator('.prose').isVisible(), false, 'no prose');
    assert.equal(await page.locator('[data-testid="explore"]').isVisible(), false);
    await page.evaluate(() => window.scrollTo(0, 0));
    for (const selector of ['[data-testid="seat-map"]', '.cockpit-phones', '[data-testid="reason"]', '.tl-playhead', '[data-testid="verdict"]']) {
      const box = await inViewport(page.locator(selector).first());
      assert.ok(box.inside, `${selector} is off the projector's screen: ${JSON.stringify(box)}`);
    }
    const size = await page.locator('[data-testid="reason"]').evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
    assert.ok(size >= 28, `the step line is ${size} px`);
    await page.screenshot({ path: join(SCREENSHOTS, 'presenter-1920.png') });
    // The flag is part of the link: opening it starts in presenter mode.
    const link = page.url();
    const second = await context.newPage();
    await second.goto(link);
    await second.locator('[data-testid="timeline"]').waitFor();
    assert.equal(await second.locator('.prose').isVisible(), false);
    await second.setViewportSize({ width: 1280, height: 720 });
    await second.screenshot({ path: join(SCREENSHOTS, 'presenter-1280x720.png') });
    await page.locator('[data-testid="presenter"]').click();
    assert.doesNotMatch(page.url(), /present=1/);
    assert.equal(await page.locator('.prose').isVisible(), true);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
