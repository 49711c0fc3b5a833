// Browser tests of the live room's pages against the real backend (BASE_URL), real PostgreSQL
// and real Redis: a facilitator opens a room at /room/new, two 375 px phones join, a round
// starts after its 3-2-1, both tap the same seat at once under the atomic defence, and exactly
// one is told it holds it while the other is told it is taken; the projector shows the seat
// taken and the scoreboard; the finished round opens in the sandbox, where the model replays
// it and names who got the seat; in a second round, closing the holder's tab lets the hold go
// and bots take every seat (sold out, no double booking); in a third, under the hold with pay
// and confirm, a phone holds, pays and gets its ticket. A phone whose event stream is refused
// says it is reconnecting, then shows the true state. A general-admission round: the facilitator
// chooses it and its tickets (the defences that do not fit are offered disabled, with why), three
// phones press "Buy a ticket" at once under check-then-act with a wide gap and the projector's
// counter shows the section oversold; under the atomic update the next round sells exactly its
// tickets and the phone left out says sold out. The room's bundle stays within a byte
// budget of its own and never reaches the chapters, and axe-core finds nothing serious or
// critical on the room's pages at 1280 and 375 px.
// Screenshots go to target/screenshots/room-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, useBrowser, visitBytes } from './browser.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/** The room pages' first visit over the wire (HTML with its inline style sheets, JS glue,
 *  wasm). Measured at 117,354 bytes when it was set; lower it as the pages shrink, never raise
 *  it without saying why. (Issue 23 raised it from 128 KiB: general-admission rounds and the
 *  counters' words in `shared` brought the page to 131,087 bytes.) */
const ROOM_BUDGET = 129 * 1024;
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };

const browser = useBrowser();
const url = (path) => new URL(path, BASE_URL).href;

function figure(t, text) {
  console.log(`figure: ${text}`);
  t.diagnostic(text);
}

async function open(viewport, path, options = {}) {
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce', ...options });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(url(path), { waitUntil: 'load' });
  return { context, page, errors };
}

const shot = (page, name) => page.screenshot({ path: join(SCREENSHOTS, `room-${name}.png`), fullPage: true });
const lineOf = (page) => page.locator('[data-testid="phone-line"]');

/** Opens a room from /room/new with the defaults (8 seats, the atomic UPDATE): its code and
 *  the facilitator's page. */
async function newRoom() {
  const host = await open(DESKTOP, '/room/new');
  const { page } = host;
  await page.locator('[data-testid="defences"] input[type="radio"]').first().waitFor({ timeout: 30_000 });
  const offered = await page.locator('[data-testid="defences"] input[type="radio"]').evaluateAll((els) => els.map((e) => e.value));
  for (const d of ['check_then_act', 'transaction', 'atomic_update', 'lock_row', 'unique_constraint', 'serializable_retry', 'hold_confirm', 'lock_nowait', 'redis_hold']) {
    assert.ok(offered.includes(d), `the form offers ${d}: ${offered}`);
  }
  assert.equal(await page.locator('[data-testid="seats"]').inputValue(), '8');
  assert.ok(await page.locator('#defence-atomic_update').isChecked(), 'the atomic UPDATE is the default');
  await shot(page, 'new-1280');
  await page.locator('[data-testid="create"]').click();
  await page.waitForURL(/\/room\/[A-Z]+\/host#.+/, { timeout: 20_000 });
  const code = await page.locator('[data-testid="code"]').innerText();
  const link = await page.locator('[data-testid="facilitator-link"]').innerText();
  const joinUrl = await page.locator('[data-testid="join-url"]').innerText();
  const secret = new URL(page.url()).hash.slice(1);
  assert.ok(link.endsWith(`#${secret}`), `the facilitator link carries the secret: ${link}`);
  assert.ok(!joinUrl.includes(secret), `the join link does not: ${joinUrl}`);
  assert.ok(joinUrl.endsWith(`/room/${code}`), joinUrl);
  const qr = await page.evaluate(async (src) => (await fetch(src)).headers.get('content-type'),
    await page.locator('img.qr').getAttribute('src'));
  assert.equal(qr, 'image/svg+xml');
  return { host, code };
}

async function joinAs(code, name, options = {}) {
  const phone = await open(PHONE, `/room/${code}`, options);
  await phone.page.locator('[data-testid="name"]').fill(name);
  await phone.page.locator('[data-testid="join"]').click();
  await assert.doesNotReject(lineOf(phone.page).filter({ hasText: 'wait for the facilitator' }).waitFor({ timeout: 20_000 }));
  return phone;
}

test('two phones race for one seat: exactly one holds it, the projector shows it, the round opens in the simulator', async (t) => {
  const { host, code } = await newRoom();
  const projector = await open(DESKTOP, `/room/${code}/projector`);
  await projector.page.locator('[data-testid="room-seat-A1"]').waitFor({ timeout: 20_000 });
  const ana = await joinAs(code, 'Ana');
  const bo = await joinAs(code, 'Bo');
  await host.page.locator('[data-testid="joined"]').filter({ hasText: '2 people' }).waitFor({ timeout: 20_000 });
  await projector.page.locator('[data-testid="joined"]').filter({ hasText: '2 people' }).waitFor({ timeout: 20_000 });
  await shot(ana.page, 'phone-lobby-375');

  await host.page.locator('[data-testid="start"]').click();
  // The 3-2-1 on every screen, from the server's opening time.
  await projector.page.locator('[data-testid="countdown"]').waitFor({ timeout: 10_000 });
  await lineOf(ana.page).filter({ hasText: 'get ready' }).waitFor({ timeout: 10_000 });
  await shot(projector.page, 'projector-countdown-1280');
  const a1 = (p) => p.locator('[data-testid="room-seat-A1"]');
  await Promise.all([ana, bo].map(({ page }) => a1(page).and(page.locator(':enabled')).waitFor({ timeout: 10_000 })));
  await lineOf(ana.page).filter({ hasText: 'go: tap a free seat' }).waitFor();

  // Both tap A1 in the same moment.
  await Promise.all([a1(ana.page).click(), a1(bo.page).click()]);
  const settled = async (page) => {
    const line = lineOf(page);
    await line.filter({ hasText: /you hold A1 — \d:\d\d left|A1 is already taken/ }).waitFor({ timeout: 20_000 });
    return line.innerText();
  };
  const lines = await Promise.all([settled(ana.page), settled(bo.page)]);
  figure(t, `after both tapped A1: Ana "${lines[0]}", Bo "${lines[1]}"`);
  const holds = lines.filter((l) => /^you hold A1 — \d:\d\d left$/.test(l));
  const taken = lines.filter((l) => l === 'A1 is already taken');
  assert.equal(holds.length, 1, `exactly one is told it holds A1: ${lines}`);
  assert.equal(taken.length, 1, `the other is told it is taken: ${lines}`);
  const [winner, loser] = holds[0] === lines[0] ? [ana, bo] : [bo, ana];
  const winnerName = winner === ana ? 'Ana' : 'Bo';
  assert.equal(await winner.page.locator('[data-testid="cancel"]').count(), 1, 'the holder may let go');
  assert.equal(await loser.page.locator('[data-testid="cancel"]').count(), 0);
  // The countdown ticks on the phone.
  const before = await lineOf(winner.page).innerText();
  await winner.page.waitForFunction((b) => document.querySelector('[data-testid="phone-line"]').innerText !== b, before, { timeout: 5_000 });
  await shot(winner.page, 'phone-holds-375');
  await shot(loser.page, 'phone-taken-375');

  // The projector: A1 held by the winner, the scoreboard, the feed of requests.
  const seat = a1(projector.page);
  await projector.page.waitForFunction((n) => {
    const s = document.querySelector('[data-testid="room-seat-A1"]');
    return s && s.dataset.status === 'HELD' && s.dataset.holder === n;
  }, winnerName, { timeout: 10_000 });
  assert.match(await seat.getAttribute('aria-label'), new RegExp(`A1, held by ${winnerName}`));
  assert.equal(await projector.page.locator('[data-testid="score-double_bookings"]').innerText(), '0');
  const feed = await projector.page.locator('[data-testid="feed"] tbody tr').allInnerTexts();
  assert.ok(feed.length >= 2 && feed.some((r) => r.includes('update show_seats')), `the feed shows both claims: ${feed}`);
  await shot(projector.page, 'projector-race-1280');

  await host.page.locator('[data-testid="finish"]').click();
  const open_ = host.page.locator('[data-testid="open-round-1"]');
  await open_.waitFor({ timeout: 20_000 });
  await shot(host.page, 'host-results-1280');
  const overlaps = await host.page.locator('[data-testid="overlap"]').allInnerTexts();
  figure(t, `round 1: ${overlaps.length} pairs of statements in flight at once${overlaps.length ? `: ${overlaps[0]}` : ''}`);
  const hostUrl = host.page.url();
  await open_.click();
  await host.page.waitForURL(/\/chapter\/5\?s=/, { timeout: 20_000 });
  const verdict = host.page.locator('[data-testid="verdict"]');
  await verdict.waitFor({ timeout: 30_000 });
  const said = await verdict.innerText();
  figure(t, `the sandbox replays round 1: "${said}"`);
  const modelled = /A1 held by (\w+)/.exec(said)?.[1];
  if (overlaps.length === 0) {
    // Nothing overlapped: the model's outcome of the server's order is what happened live.
    assert.equal(modelled, winnerName, `the model gives A1 to ${winnerName}, as live: ${said}`);
  } else {
    // The claims were in flight at once, and the page said so: the model's order is one of two.
    assert.ok(['Ana', 'Bo'].includes(modelled), `the model gives A1 to one of them: ${said}`);
    assert.match(overlaps[0], /claim .* and .* claim .* were in flight at once/);
  }
  // The round is other people on other seats: chapter 5's goal is not about it. Its clock
  // counts the round's seconds, and every word of the replay says so.
  assert.equal(await host.page.locator('[data-testid="goal"], .scenario-goal').count(), 0, 'no chapter goal for a live round');
  assert.match(await host.page.locator('[data-testid="schedule-name"]').innerText(), /^Room [A-Z]+, round 1$/);
  assert.match(await host.page.locator('[data-testid="clock"]').innerText(), /clock: second \d+/);
  for (const part of ['verdict-panel', 'seat-map', 'timeline']) {
    const text = await host.page.locator(`[data-testid="${part}"]`).first().innerText();
    assert.ok(!/\bminutes?\b|\d min\b/.test(text), `the ${part} counts seconds: ${text}`);
  }
  const lanes = (await host.page.locator('[data-testid="timeline"]').innerText()).toLowerCase();
  for (const name of ['ana', 'bo']) assert.ok(lanes.includes(name), `the sandbox shows ${name}'s steps`);
  await shot(host.page, 'sandbox-round-1280');

  // Round 2: closing the holder's tab lets the hold go, as the defence says.
  await host.page.goto(hostUrl);
  await host.page.locator('[data-testid="start"]').click();
  const a2 = winner.page.locator('[data-testid="room-seat-A2"]');
  await a2.and(winner.page.locator(':enabled')).waitFor({ timeout: 15_000 });
  await a2.click();
  await lineOf(winner.page).filter({ hasText: /you hold A2/ }).waitFor({ timeout: 10_000 });
  await projector.page.waitForFunction(() => document.querySelector('[data-testid="room-seat-A2"]').dataset.status === 'HELD', null, { timeout: 10_000 });
  await winner.page.close({ runBeforeUnload: true });
  await projector.page.waitForFunction(() => document.querySelector('[data-testid="room-seat-A2"]').dataset.status === 'AVAILABLE', null, { timeout: 10_000 });
  // The seat map follows the round's seats and the feed the requests' records, committed a
  // moment after the release itself: an update in between shows the seat free before its row.
  const releasedRow = (who) => [...document.querySelectorAll('[data-testid="feed"] tbody tr')]
    .some((tr) => tr.innerText.startsWith(who) && /released/.test(tr.innerText));
  await projector.page.waitForFunction(releasedRow, winnerName, { timeout: 10_000 }).catch(() => {});
  const feed2 = await projector.page.locator('[data-testid="feed"] tbody tr').allInnerTexts();
  assert.ok(feed2.some((r) => r.startsWith(winnerName) && /released/.test(r)), `the feed shows the release: ${feed2}`);

  // Bots race for the rest of round 2, each for a seat picked at random: with a hundred of them
  // every seat goes (all but surely), none twice, and the phone left out says so.
  await host.page.locator('#bots').fill('100');
  await host.page.locator('[data-testid="release-bots"]').click();
  await host.page.locator('[data-testid="host-notice"]').filter({ hasText: '100 bots are racing' }).waitFor({ timeout: 20_000 });
  await lineOf(loser.page).filter({ hasText: 'sold out: every seat is taken' }).waitFor({ timeout: 30_000 });
  await projector.page.locator('[data-testid="joined"]').filter({ hasText: '100 bots' }).waitFor({ timeout: 20_000 });
  assert.equal(await projector.page.locator('[data-testid="score-double_bookings"]').innerText(), '0');
  await shot(projector.page, 'projector-bots-1280');
  await shot(loser.page, 'phone-sold-out-375');

  // Round 3 under the hold with pay and confirm: hold, Pay, a ticket.
  await host.page.locator('[data-testid="finish"]').click();
  await host.page.locator('[data-testid="defence"]').selectOption('hold_confirm');
  await host.page.locator('[data-testid="apply"]').click();
  await host.page.locator('[data-testid="host-notice"]').filter({ hasText: 'the next round uses Hold, pay, confirm' }).waitFor({ timeout: 10_000 });
  await host.page.locator('[data-testid="start"]').click();
  const a3 = loser.page.locator('[data-testid="room-seat-A3"]');
  await a3.and(loser.page.locator(':enabled')).waitFor({ timeout: 15_000 });
  await a3.click();
  await lineOf(loser.page).filter({ hasText: /^you hold A3 — \d:\d\d left, pay now$/ }).waitFor({ timeout: 10_000 });
  await loser.page.locator('[data-testid="pay"]').click();
  await lineOf(loser.page).filter({ hasText: 'paid: your ticket is issued' }).waitFor({ timeout: 10_000 });
  await projector.page.locator('[data-testid="score-sold"]').filter({ hasText: /^1$/ }).waitFor({ timeout: 10_000 });
  await shot(loser.page, 'phone-paid-375');
  for (const p of [host, projector, ana, bo]) {
    assert.deepEqual(p.errors, [], 'no page error');
    await p.context.close();
  }
});

test('a general-admission round: phones buy tickets, the projector counts them, and check-then-act oversells', async (t) => {
  const { host, code } = await newRoom();
  const hp = host.page;
  // The next round sells general admission: 2 tickets, check-then-act, a gap of 1.5 s.
  await hp.locator('[data-testid="kind"]').selectOption('general_admission');
  await hp.locator('[data-testid="tickets"]').fill('2');
  // The options follow the kind: a hold has nothing to hold in a section, so it is disabled.
  const holds = hp.locator('[data-testid="defence"] option[value="hold_confirm"]');
  await holds.and(hp.locator(':disabled')).waitFor({ state: 'attached', timeout: 10_000 });
  assert.match(await holds.innerText(), /unavailable: .*does not fit a general-admission round/);
  assert.equal(await hp.locator('[data-testid="defence"] option[value="check_then_act"]:disabled').count(), 0);
  await hp.locator('[data-testid="defence"]').selectOption('check_then_act');
  await hp.locator('#host-gap').fill('1500');
  await hp.locator('[data-testid="apply"]').click();
  await hp.locator('[data-testid="host-notice"]')
    .filter({ hasText: 'the next round uses Check, then act on general admission of 2 tickets, gap 1500 ms' })
    .waitFor({ timeout: 10_000 });
  await shot(hp, 'host-ga-1280');
  const projector = await open(DESKTOP, `/room/${code}/projector`, { bypassCSP: true });
  const phones = [];
  // axe-core goes in as an inline script, which the page's Content-Security-Policy refuses.
  for (const name of ['Ana', 'Bo', 'Cy']) phones.push(await joinAs(code, name, { bypassCSP: true }));
  await hp.locator('[data-testid="start"]').click();
  const buy = (p) => p.page.locator('[data-testid="buy"]');
  await Promise.all(phones.map((p) => buy(p).and(p.page.locator(':enabled')).waitFor({ timeout: 15_000 })));
  await lineOf(phones[0].page).filter({ hasText: 'go: buy a ticket' }).waitFor();
  assert.equal(await phones[0].page.locator('[data-testid="room-seat-A1"]').count(), 0, 'no seat map in a section');
  await projector.page.locator('[data-testid="tickets-left"]').filter({ hasText: /^2$/ }).waitFor({ timeout: 10_000 });
  await shot(phones[0].page, 'phone-ga-go-375');

  // All three press at once: each reads "2 left" within the gap, and each decrement follows.
  await Promise.all(phones.map((p) => buy(p).click()));
  const said = await Promise.all(phones.map(async ({ page }) => {
    const line = lineOf(page);
    await line.filter({ hasText: /you got a ticket|sold out/ }).waitFor({ timeout: 20_000 });
    return line.innerText();
  }));
  figure(t, `general admission of 2 under check-then-act, 1.5 s gap: ${said.join(' / ')}`);
  const got = said.filter((l) => l === 'you got a ticket').length;
  assert.ok(got > 2, `more buyers than tickets were told yes: ${said}`);
  // Oversold is sold out: no phone may press again.
  for (const p of phones) await buy(p).and(p.page.locator(':disabled')).waitFor({ timeout: 10_000 });
  await projector.page.locator('[data-testid="tickets-sold"]').filter({ hasText: `${got} sold of 2` }).waitFor({ timeout: 10_000 });
  assert.equal(await projector.page.locator('[data-testid="tickets-left"]').innerText(), String(2 - got));
  assert.match(await projector.page.locator('[data-testid="oversold"]').innerText(), new RegExp(`^${got - 2} oversold`));
  assert.equal(await projector.page.locator('[data-testid="score-double_bookings"]').innerText(), String(got - 2));
  // A section has no unique key, hold or payment: the scoreboard counts what it can have.
  assert.equal(await projector.page.locator('[data-testid="score-unique_refusals"], [data-testid="score-refunds_owed"], [data-testid="score-holds_never_released"]').count(), 0);
  assert.match(await projector.page.locator('[data-testid="scoreboard"]').innerText(), /oversold: told yes after the last ticket was gone/);
  const feed = await projector.page.locator('[data-testid="feed"] tbody tr').allInnerTexts();
  assert.ok(feed.some((r) => r.includes('tickets_left')), `the feed shows the section's SQL: ${feed}`);
  await shot(projector.page, 'projector-ga-oversold-1280');
  await shot(phones[0].page, 'phone-ga-got-375');
  for (const [name, page] of [['projector', projector.page], ['phone', phones[0].page]]) {
    const violations = await axe(page);
    figure(t, `axe on the general-admission ${name}: ${violations.length} serious or critical`);
    assert.deepEqual(violations, [], `axe on the general-admission ${name}`);
  }

  // Round 2 under the atomic update: exactly two tickets, and the third phone is told sold out.
  await hp.locator('[data-testid="finish"]').click();
  await hp.locator('[data-testid="defence"]').selectOption('atomic_update');
  await hp.locator('[data-testid="apply"]').click();
  await hp.locator('[data-testid="host-notice"]').filter({ hasText: 'the next round uses Atomic' }).waitFor({ timeout: 10_000 });
  await hp.locator('[data-testid="start"]').click();
  await Promise.all(phones.map((p) => buy(p).and(p.page.locator(':enabled')).waitFor({ timeout: 15_000 })));
  await Promise.all(phones.map((p) => buy(p).click()));
  const said2 = await Promise.all(phones.map(async ({ page }) => {
    const line = lineOf(page);
    await line.filter({ hasText: /you got a ticket|sold out/ }).waitFor({ timeout: 20_000 });
    return line.innerText();
  }));
  figure(t, `general admission of 2 under the atomic update: ${said2.join(' / ')}`);
  assert.equal(said2.filter((l) => l === 'you got a ticket').length, 2, `${said2}`);
  const out = phones[said2.findIndex((l) => l !== 'you got a ticket')];
  await lineOf(out.page).filter({ hasText: 'sold out: no tickets left' }).waitFor({ timeout: 10_000 });
  await projector.page.locator('[data-testid="tickets-sold"]').filter({ hasText: '2 sold of 2' }).waitFor({ timeout: 10_000 });
  assert.equal(await projector.page.locator('[data-testid="oversold"]').count(), 0);
  assert.equal(await projector.page.locator('[data-testid="tickets-left"]').innerText(), '0');
  await shot(out.page, 'phone-ga-sold-out-375');
  await shot(projector.page, 'projector-ga-atomic-1280');
  for (const p of [host, projector, ...phones]) {
    assert.deepEqual(p.errors, [], 'no page error');
    await p.context.close();
  }
});

test('the room bundle is its own: within its budget, and the chapters never load it', async (t) => {
  const responses = await visitBytes(browser, '/room/new', { viewport: PHONE, ready: '[data-testid="defences"] input' });
  const bundle = responses.filter((r) => !r.url.includes('/api/'));
  const total = bundle.reduce((a, r) => a + r.bytes, 0);
  const wasm = bundle.filter((r) => r.url.endsWith('.wasm'));
  figure(t, `room page first visit: ${total} bytes over the wire in ${bundle.length} responses (wasm ${wasm.map((r) => r.bytes).join(', ')} bytes); the budget is ${ROOM_BUDGET}`);
  assert.equal(wasm.length, 1);
  assert.ok(wasm[0].url.includes('/room-page/'), wasm[0].url);
  assert.ok(total <= ROOM_BUDGET, `${total} bytes, more than the room's budget of ${ROOM_BUDGET}`);
  const chapter = await (await fetch(url('/chapter/1'))).text();
  assert.ok(!chapter.includes('room-page'), 'the chapters do not name the room bundle');
  const html = await fetch(url('/room/new'));
  assert.match(html.headers.get('content-security-policy'), /style-src 'self' 'sha256-/);
  assert.equal(html.headers.get('cache-control'), 'no-cache');
});

test('a phone whose event stream drops says it is reconnecting, then shows the true state', async (t) => {
  const created = await (await fetch(url('/api/rooms'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
  const context = await browser.newContext({ viewport: PHONE, reducedMotion: 'reduce' });
  // The event stream is refused, as by a server that is restarting; plain requests still go.
  const refuse = (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"message":"restarting"}}' });
  await context.route('**/events', refuse);
  const page = await context.newPage();
  await page.goto(url(`/room/${created.code}`), { waitUntil: 'load' });
  await page.locator('[data-testid="name"]').fill('Ana');
  await page.locator('[data-testid="join"]').click();
  const banner = page.locator('[data-testid="reconnecting"]');
  await banner.waitFor({ timeout: 20_000 });
  await shot(page, 'phone-reconnecting-375');
  // While the phone is cut off, the round starts.
  const started = await fetch(url(`/api/rooms/${created.code}/rounds`), {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${created.secret}` }, body: '{"countdown_ms": 0}',
  });
  assert.equal(started.status, 200);
  await context.unroute('**/events', refuse);
  await banner.waitFor({ state: 'detached', timeout: 20_000 });
  await lineOf(page).filter({ hasText: 'go: tap a free seat' }).waitFor({ timeout: 10_000 });
  figure(t, `after the drop the phone says: "${await lineOf(page).innerText()}"`);
  await context.close();
});

async function axe(page) {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

test('axe-core finds no serious or critical violation on the room pages at 1280 and 375 px', async (t) => {
  const { host, code } = await newRoom();
  const secret = new URL(host.page.url()).hash.slice(1);
  await host.context.close();
  const found = [];
  const pages = [
    ['/room/new', '[data-testid="defences"] input'],
    [`/room/${code}/host#${secret}`, '[data-testid="joined"]'],
    [`/room/${code}`, '[data-testid="name"]'],
    [`/room/${code}/projector`, '[data-testid="room-seat-A1"]'],
  ];
  for (const [path, ready] of pages) {
    for (const viewport of [DESKTOP, PHONE]) {
      // axe-core goes in as an inline script, which the page's Content-Security-Policy refuses.
      const { context, page } = await open(viewport, path, { bypassCSP: true });
      await page.locator(ready).first().waitFor({ timeout: 30_000 });
      if (path === `/room/${code}`) {
        await page.locator('[data-testid="name"]').fill(`Axe${viewport.width}`);
        await page.locator('[data-testid="join"]').click();
        await page.locator('[data-testid="room-seat-A1"]').waitFor({ timeout: 20_000 });
      }
      const violations = await axe(page);
      const count = violations.reduce((a, v) => a + v.nodes.length, 0);
      const name = path.replace(code, 'CODE').replace(/#.*/, '');
      figure(t, `axe ${name} at ${viewport.width}px: ${count} serious or critical`);
      await page.screenshot({ path: join(SCREENSHOTS, `room-axe${name.replaceAll('/', '-')}-${viewport.width}.png`), fullPage: true });
      for (const v of violations) {
        for (const node of v.nodes) found.push(`${name} ${viewport.width}px ${v.impact} ${v.id}: ${node}`);
      }
      // Nothing scrolls sideways on a phone.
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (wide > 0) found.push(`${name} at ${viewport.width}px scrolls sideways by ${wide}px`);
      await context.close();
    }
  }
  for (const f of found) figure(t, f);
  assert.deepEqual(found, []);
});
