import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { renderHtmlReport } from './html-report.ts';

// A trace is text its agent wrote: whatever a tool name, call id, reason or file name holds, the
// report page must show it as text and never run it.

const executablePath = process.env['CANDOR_CHROMIUM'] ?? '/usr/bin/chromium';
const missing = existsSync(executablePath)
  ? undefined
  : `no chromium at ${executablePath} (apt-get install chromium, or set CANDOR_CHROMIUM)`;

const scratch = mkdtempSync(join(tmpdir(), 'candor-html-hostile-'));
let browser: Browser | undefined;
beforeAll(async () => {
  if (missing) return;
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// Each payload sets `window.pwned` if the page ever runs it as script or markup.
const payloads = [
  '</script><script>window.pwned = 1</script>',
  '<!--<script>window.pwned = 2</script>-->',
  '<img src=x onerror="window.pwned = 3">',
  '"><svg onload="window.pwned = 4">',
  '</title><script>window.pwned = 5</script>',
  // JSON allows U+2028/2029 raw; JavaScript before ES2019 did not. Lone surrogates and NUL.
  '\u2028\u2029"};window.pwned = 6;//',
  '\uD800 \uDFFF \u0000 \u001b[31m ]]> &lt;script&gt;',
];

const outcomes = ['error', 'denied', 'unknown', 'success'] as const;

function record(text: string, index: number): CallRecord {
  return {
    harness: 'acme',
    callId: `${text}#${index}`,
    tool: text,
    argsSummary: text,
    outcome: outcomes[index % outcomes.length] ?? 'unknown',
    vendorStatus: text,
    vendorField: text,
    denialReason: text,
    evidence: text,
    resultLength: 1,
    exitCode: 1,
    startedAt: text,
    endedAt: text,
    line: index + 1,
  };
}

describe('the HTML report on hostile text, in chromium', () => {
  it('runs none of it and shows each field as the text it was', async (context) => {
    if (missing || !browser) return context.skip(missing);
    const file = join(scratch, 'report.html');
    const names = payloads.map((payload) => `runs/${payload}.jsonl`);
    writeFileSync(
      file,
      renderHtmlReport(
        names.map((name, index) => ({
          name,
          records: payloads.map((payload, at) =>
            record(payload, index * payloads.length + at),
          ),
        })),
      ),
    );
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('dialog', (dialog) => errors.push(`dialog ${dialog.message()}`));
    await page.goto(`file://${file}`);
    await page.waitForSelector('body[data-ready]');
    // Each trace's rows drawn in turn, and each row's evidence opened: all the text is in the page.
    const ids: string[] = [];
    for (let index = 0; index < names.length; index += 1) {
      await page.selectOption('#trace', String(index));
      const rows = page.locator('#spacer .row:not([hidden])');
      expect(await rows.count()).toBe(payloads.length);
      for (let at = 0; at < payloads.length; at += 1) {
        await rows.nth(at).click();
        ids.push(
          (await page.locator('#details dd').nth(2).textContent()) ?? '',
        );
      }
    }
    expect(await page.evaluate(() => 'pwned' in globalThis)).toBe(false);
    expect(errors).toEqual([]);
    // The markup in the file names is the page's title as text (the browser drops its controls).
    const title = await page.title();
    for (const payload of payloads.slice(0, 5))
      expect(title).toContain(`runs/${payload}.jsonl`);
    // The call ids read back exactly, lone surrogates included.
    const expected = names.flatMap((_, index) =>
      payloads.map(
        (payload, at) => `${payload}#${index * payloads.length + at}`,
      ),
    );
    expect(ids.sort()).toEqual(expected.sort());
    await page.close();
  }, 60_000);
});
