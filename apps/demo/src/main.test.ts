import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LlmTestServer } from '@candor/testing';
import { describe, expect, it } from 'vitest';

const demoRoot = dirname(dirname(fileURLToPath(import.meta.url)));

async function runDemo(args: string[] = [], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=@candor/source',
        'src/main.ts',
        ...args,
      ],
      { cwd: demoRoot, env: { ...process.env, CANDOR_MODEL: '', ...env } },
    );
    return { stdout, stderr, code: 0 };
  } catch (error: unknown) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

describe('pnpm demo', () => {
  it('shows every outcome, the legacy bug and its fix, the breaker, and a scripted agent run', async () => {
    const { stdout, code } = await runDemo();
    expect(code).toBe(0);
    const lines = stdout.split('\n').map((line) => line.trim());
    const has = (text: string): void => {
      expect(
        lines.some((line) => line.includes(text)),
        text,
      ).toBe(true);
    };
    has('✓ SUCCESS  2 + 3 * 4');
    has('text: "14"');
    has('⚠ PARTIAL (reason: rounded)  2 ** 40 * 1000 (above 1e10)');
    has('text: "1.099512e+15"');
    has('✗ ERROR INVALID_PARAM  an empty expression');
    has('✗ ERROR INVALID_FORMAT  2 + abc');
    has('✗ ERROR EXECUTION_ERROR  1 / 0');
    has('✓ SUCCESS  legacy_read_file (auto-wrapped function)');
    has('✗ ERROR NOT_FOUND  read_file (migrated, step 3)');
    has('call 3: ✗ ERROR CIRCUIT_OPEN (tool NOT invoked)  [breaker: open]');
    has('reset timeout passed  [breaker: half_open]');
    has(
      'call 4 (the half-open trial): ✓ SUCCESS (tool ran)  [breaker: closed]',
    );
    has(
      '│ [INCOMPLETE RESULT: rounded] This result is incomplete; do not present it as complete.',
    );
    has(
      'the model said: "The first result is approximate (shown in scientific notation)."',
    );
    has('│ [INVALID_FORMAT] Unexpected character "×" at position 4');
    has('the model said: "My input was malformed; correcting it."');
    has('run finished: completed');
    expect(stdout).not.toContain('\u001b[');
    expect(stdout).not.toContain('Infinity');
  });

  it('prints what the README quick start shows', async () => {
    const readme = readFileSync(
      join(demoRoot, '..', '..', 'README.md'),
      'utf8',
    );
    const block =
      /## Quick start[\s\S]*?```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const shown = block.split('\n').filter((line) => line.trim() !== '');
    expect(shown.length).toBeGreaterThan(10);
    const { stdout } = await runDemo();
    // Times vary from run to run; the README trims long texts with "…".
    const normalise = (line: string): string =>
      line.replace(/t=\s*\d+ ms/g, 't=N ms').trim();
    const output = stdout.split('\n').map(normalise);
    for (const line of shown) {
      const pieces = normalise(line)
        .split('…')
        .map((piece) => piece.trim())
        .filter((piece) => piece !== '');
      const found = output.some((candidate) => {
        let from = 0;
        for (const piece of pieces) {
          const at = candidate.indexOf(piece, from);
          if (at < 0) return false;
          from = at + piece.length;
        }
        return true;
      });
      expect(found, `README line not in the demo output: ${line}`).toBe(true);
    }
  });

  it('prints JSON lines with --json', async () => {
    const { stdout, code } = await runDemo(['--json']);
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      events
        .filter((event) => event['type'] === 'response')
        .map((event) => event['code'] ?? event['outcome']),
    ).toEqual([
      'success',
      'partial',
      'INVALID_PARAM',
      'INVALID_FORMAT',
      'EXECUTION_ERROR',
      'success',
      'NOT_FOUND',
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      stopReason: 'completed',
    });
    expect(
      events.some(
        (event) =>
          event['type'] === 'model-received' && event['outcome'] === 'partial',
      ),
    ).toBe(true);
  });

  it.each([
    {
      provider: 'openai',
      path: '/v1/chat/completions',
      env: (url: string) => ({
        CANDOR_MODEL: 'openai:gpt-test',
        OPENAI_BASE_URL: `${url}/v1`,
        OPENAI_API_KEY: 'test-key',
      }),
    },
    {
      provider: 'gcp.gemini',
      path: '/v1beta/models/gpt-test:streamGenerateContent',
      env: (url: string) => ({
        CANDOR_MODEL: 'gemini:gpt-test',
        GEMINI_BASE_URL: url,
        GEMINI_API_KEY: 'test-key',
      }),
    },
    {
      provider: 'openai',
      path: '/v1/responses',
      env: (url: string) => ({
        CANDOR_MODEL: 'openai-responses:gpt-test',
        OPENAI_BASE_URL: `${url}/v1`,
        OPENAI_API_KEY: 'test-key',
      }),
    },
  ])(
    'uses a real $provider provider on $path when CANDOR_MODEL is set',
    async ({ provider, path, env }) => {
      const server = new LlmTestServer();
      server.conversation('live', (c) => {
        c.step('ask')
          .whenUser(/2 \*\* 40/)
          .callsTools([
            {
              id: 'call_1',
              name: 'calculator',
              args: { expression: '2 + 3 * 4' },
            },
          ]);
        c.step('answer')
          .whenToolResult('calculator', 'call_1', 'ok')
          .responds('It is 14.')
          .complete();
      });
      const { url, close } = await server.start();
      try {
        const { stdout, code } = await runDemo([], env(url));
        expect(code).toBe(0);
        expect(stdout).toContain(
          `An agent run with ${provider} model gpt-test`,
        );
        expect(stdout).toContain('the model said: "It is 14."');
        expect(stdout).toContain('run finished: completed');
        expect(server.journal.map((entry) => entry.path)).toContain(path);
        server.assertNoUnmatched();
      } finally {
        await close();
      }
    },
  );

  it('rejects an unknown option and a malformed CANDOR_MODEL with a clear message', async () => {
    const option = await runDemo(['--colour']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('Unknown option --colour');
    const model = await runDemo([], { CANDOR_MODEL: 'gpt-4' });
    expect(model.code).toBe(2);
    expect(model.stderr).toContain(
      'CANDOR_MODEL must be openai:<model>, openai-responses:<model>, anthropic:<model>, gemini:<model> or an OpenAI-compatible base URL',
    );
    expect(model.stderr).not.toMatch(/\n\s+at /);
  });
});
