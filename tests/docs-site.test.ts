import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built site in a real browser: Debian's chromium (installed by .ci/run), driven by
// playwright-core, which downloads no browser of its own.
const root = join(import.meta.dirname, '..');
const site = join(root, 'docs', '.vitepress', 'dist');
const executablePath = process.env['CANDOR_CHROMIUM'] ?? '/usr/bin/chromium';
const outputDir = join(root, 'test-results', 'docs-site');

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
    const heading = page.locator('main h1').first();
    await heading.waitFor({ state: 'visible' });
    expect(await heading.innerText()).toContain('defineTool');
    // The rendered reference, not a 404 page: the signature and its parameters are there.
    expect(await page.locator('main').innerText()).toMatch(/Parameters/);

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
    expect(await page.locator('main').innerText()).toContain('CIRCUIT_OPEN');
    await page.close();
  }, 180_000);
});
