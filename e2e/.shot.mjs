import { chromium } from 'playwright-core';
const [url, w, h, out, ...clicks] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const page = await browser.newPage({ viewport: { width: +w, height: +h } });
await page.goto(url);
await page.locator('[data-testid="timeline"]').waitFor({ timeout: 20000 }).catch(() => {});
for (const c of clicks) { await page.locator(c).first().click(); await page.waitForTimeout(200); }
if (process.env.SCROLL) await page.locator(process.env.SCROLL).first().evaluate(e => e.scrollIntoView({block: 'start'})); await page.waitForTimeout(300);
await page.screenshot({ path: out, fullPage: process.env.FULL === '1' });
const sw = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
console.log(out, 'scrollWidth', sw);
await browser.close();
