import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage();
await page.goto(process.argv[2]);
await page.locator('[data-testid="timeline"]').waitFor();
for (const i of [1,2,3]) {
  const el = page.locator(`[data-testid="event-${i}"]`);
  console.log(JSON.stringify(await el.evaluate(e => [e.textContent, e.getAttribute('aria-label')])));
}
await browser.close();
