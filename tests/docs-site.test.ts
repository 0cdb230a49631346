import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built site in a real browser: Debian's chromium (installed by .ci/run), driven by
// playwright-core, which downloads no browser of its own.
const root = join(import.meta.dirname, '..');
const site = join(root, 'docs', '.vitepress', 'dist');
const executablePath = process.env['CANDOR_CHROMIUM'] ?? '/usr/bin/chromium';
const outputDir = join(root, 'test-results', 'docs-site');
// The screenshots the docs show (docs/getting-started.md); refreshed with
// CANDOR_UPDATE_SCREENSHOTS=1, otherwise each run writes its own to test-results only.
const screenshotsDir = join(root, 'docs', 'public', 'screenshots');
const updateScreenshots = process.env['CANDOR_UPDATE_SCREENSHOTS'] === '1';

const missing = !existsSync(executablePath)
  ? `no chromium at ${executablePath} (apt-get install chromium, or set CANDOR_CHROMIUM)`
  : !existsSync(join(site, 'index.html'))
    ? 'the site is not built (pnpm docs:build; pnpm test builds it first)'
    : undefined;

describe('the documentation site in chromium', () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let base = '';

  beforeAll(async () => {
    if (missing) return;
    // cleanUrls: /getting-started is served from getting-started.html.
    const files = sirv(site, { extensions: ['html'], dev: false });
    server = createServer((request, response) => {
      files(request, response, () => {
        response.statusCode = 404;
        response.end();
      });
    });
    await new Promise<void>((resolve) => {
      server?.listen(0, '127.0.0.1', resolve);
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Running as root (CI containers), chromium refuses to start with its sandbox on.
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => {
      if (server) {
        server.close(() => {
          resolve();
        });
      } else resolve();
    });
  });

  it('leads from the home page through Getting started to the API page of defineTool', async (context) => {
    if (missing || !browser) return context.skip(missing);
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${base}/`);
    await expect.poll(() => page.title()).toContain('Candor');

    await page.getByRole('link', { name: 'Getting started' }).first().click();
    await page.waitForURL(`${base}/getting-started`);
    await expect
      .poll(() => page.locator('main h1').first().innerText())
      .toContain('Getting started');

    await page.getByRole('link', { name: 'defineTool', exact: true }).click();
    await page.waitForURL(`${base}/api/@candor/tools/functions/defineTool`);
    // The router changes the URL before it swaps the page in: wait for the new heading, or a
    // loaded machine reads the old page's.
    await expect
      .poll(() => page.locator('main h1').first().innerText())
      .toContain('defineTool');
    // The rendered reference, not a 404 page: the signature and its parameters are there.
    await expect
      .poll(() => page.locator('main').innerText())
      .toMatch(/Parameters/);
    // "Defined in" links to the source on the repository's host (package.json's repository).
    const source = page
      .getByRole('link', { name: /^tools\/src\/[\w-]+\.ts:\d+$/ })
      .first();
    expect(await source.getAttribute('href')).toMatch(
      /^https:\/\/github\.com\/candor\/candor\/blob\/main\/packages\/tools\/src\/[\w-]+\.ts#L\d+$/,
    );

    mkdirSync(outputDir, { recursive: true });
    const screenshot = join(outputDir, 'api-defineTool.png');
    await page.screenshot({ path: screenshot, fullPage: false });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    await page.close();
  }, 180_000);

  it('finds the codes page by searching for CIRCUIT_OPEN', async (context) => {
    if (missing || !browser) return context.skip(missing);
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${base}/`);
    await page.locator('#local-search button').click();
    await page.locator('#localsearch-input').fill('CIRCUIT_OPEN');
    const codes = page.locator('ul.results a.result[href*="/codes"]').first();
    await codes.waitFor({ state: 'visible' });
    mkdirSync(outputDir, { recursive: true });
    await page.screenshot({ path: join(outputDir, 'search-CIRCUIT_OPEN.png') });
    await codes.click();
    await page.waitForURL(/\/codes(#.*)?$/);
    await expect
      .poll(() => page.locator('main h1').first().innerText())
      .toContain('Error codes');
    await expect
      .poll(() => page.locator('main').innerText())
      .toContain('CIRCUIT_OPEN');
    await page.close();
  }, 180_000);
  it.for([
    { name: 'home', path: '/' },
    { name: 'guide', path: '/getting-started' },
    { name: 'api', path: '/api/@candor/registry/classes/ToolRegistry' },
  ])(
    'shows the $name page ($path) at 1280 px with no console error and nothing cut off',
    { timeout: 180_000 },
    async ({ name, path }, context) => {
      if (missing || !browser) return context.skip(missing);
      const page = await browser.newPage({
        viewport: { width: 1280, height: 800 },
      });
      page.setDefaultTimeout(60_000);
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => {
        errors.push(error.message);
      });
      await page.goto(`${base}${path}`, { waitUntil: 'networkidle' });
      await page.locator('#app .VPContent').waitFor({ state: 'visible' });

      expect(await overflow(page)).toEqual({
        page: { scrollWidth: expect.any(Number) as number, cut: false },
        codeBlocks: [],
      });
      // The check above sees the code blocks it is meant to (not vacuous on these pages).
      expect(
        await page.locator('.vp-doc div[class*="language-"] pre').count(),
      ).toBeGreaterThan(0);
      expect(errors).toEqual([]);

      mkdirSync(outputDir, { recursive: true });
      const screenshot = join(outputDir, `${name}.png`);
      await page.screenshot({ path: screenshot });
      expect(statSync(screenshot).size).toBeGreaterThan(10_000);
      if (updateScreenshots) {
        mkdirSync(screenshotsDir, { recursive: true });
        copyFileSync(screenshot, join(screenshotsDir, `${name}.png`));
      }
      await page.close();
    },
  );
});

/**
 * What is cut off at the right edge: the page itself (a horizontal scrollbar), and each code
 * block wider than its box (one that does not scroll is cut; one that does hides its end until
 * scrolled), or that pokes out of the content column.
 */
async function overflow(page: Page): Promise<{
  page: { scrollWidth: number; cut: boolean };
  codeBlocks: string[];
}> {
  // A string, run in the page: the repo's TypeScript has no DOM library.
  return page.evaluate<{
    page: { scrollWidth: number; cut: boolean };
    codeBlocks: string[];
  }>(`(() => {
    const root = document.documentElement;
    const column = document.querySelector('.vp-doc, .VPHome');
    const right = column ? column.getBoundingClientRect().right : root.clientWidth;
    const codeBlocks = [];
    for (const pre of document.querySelectorAll('.vp-doc div[class*="language-"] pre')) {
      const scrolls = ['auto', 'scroll'].includes(getComputedStyle(pre).overflowX);
      const box = pre.getBoundingClientRect();
      const first = pre.textContent.slice(0, 40);
      if (pre.scrollWidth > pre.clientWidth) {
        // A wide block scrolls rather than being cut; these pages' examples fit without it.
        codeBlocks.push((scrolls ? 'needs a scroll: ' : 'cut, no scroll: ') + first);
      }
      if (box.right > right + 1 || box.right > root.clientWidth) {
        codeBlocks.push('past the column (' + box.right + ' > ' + right + '): ' + first);
      }
    }
    return {
      page: { scrollWidth: root.scrollWidth, cut: root.scrollWidth > root.clientWidth },
      codeBlocks,
    };
  })()`);
}

// "A page's HTML without its own content is under 60 KB": what every page repeats (head, nav,
// sidebar, footer) is everything outside its <main>; the home page has no <main>, all of it counts.
describe('the weight of each built page', () => {
  const pages = existsSync(site)
    ? readdirSync(site, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith('.html'))
        .map((entry) => join(entry.parentPath, entry.name))
    : [];

  it('finds the built pages, API pages among them', (context) => {
    if (pages.length === 0) return context.skip('the site is not built');
    expect(pages.length).toBeGreaterThan(100);
    expect(pages.some((file) => file.includes(join('api', '@candor')))).toBe(
      true,
    );
  });

  it('is under 60 KB per page without its own content', (context) => {
    if (pages.length === 0) return context.skip('the site is not built');
    const heavy = pages.flatMap((file) => {
      const html = readFileSync(file, 'utf8');
      const start = html.indexOf('<main');
      const end = html.indexOf('</main>');
      const own = start >= 0 && end > start ? end - start : 0;
      const shell = Buffer.byteLength(html) - own;
      return shell >= 60 * 1024 ? [`${file}: ${shell} bytes`] : [];
    });
    expect(heavy).toEqual([]);
  });
});
