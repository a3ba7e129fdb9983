// `npm run report-screenshot`: opens a report in headless Chromium, checks it, and saves a screenshot.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { parseCommandLine, runMain, UsageError } from '../../common/cli';

const USAGE = 'npm run report-screenshot -- REPORT.html [--png FILE]';

/** Chromium to drive: `CHROMIUM` if set, else Debian's (`apt-get install chromium`). */
export function findChromium(): string | null {
  for (const candidate of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    Boolean,
  ) as string[]) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there: try the next
    }
  }
  return null;
}

/** What a page showed in a real headless browser. */
export interface PageCheck {
  /** Console errors and uncaught exceptions while it loaded and while a cell was clicked. */
  errors: string[];
  /** Scenario cells on the page. */
  cells: number;
  /** The detail panel's text after a click on the first cell (empty if there is no cell). */
  detail: string;
}

/**
 * Opens a sweep report (`npm run sweep -- --html FILE`) in headless Chromium, offline, clicks its first
 * cell, and writes a screenshot of the page to `png`.
 */
export async function checkReport(html: string, png: string): Promise<PageCheck> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium found: apt-get install chromium, or set CHROMIUM');
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext({ offline: true, viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`file://${path.resolve(html)}`);
    const cells = await page.locator('.cell[data-i]').count();
    let detail = '';
    if (cells > 0) {
      await page.locator('.cell[data-i]').first().click();
      detail = (await page.locator('#detail').innerText()) ?? '';
    }
    await page.screenshot({ path: png, fullPage: true });
    return { errors, cells, detail };
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(process.argv.slice(2), { png: { type: 'string' } }, USAGE, true);
  if (positionals.length !== 1) throw new UsageError('give the report file', USAGE);
  const html = positionals[0];
  const png = values.png ?? html.replace(/\.html?$/, '') + '.png';
  const check = await checkReport(html, png);
  for (const e of check.errors) console.error(`page error: ${e}`);
  console.log(`${check.cells} scenario cells; screenshot written to ${png}`);
  if (check.errors.length > 0) throw new Error(`${check.errors.length} error(s) on the page`);
}

if (require.main === module) runMain(main);
