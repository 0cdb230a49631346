import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ToolRegistry } from '@candor/registry';
import { LlmTestServer } from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent.ts';
import { resumeModel } from './__fixtures__/resume-models.ts';

// Acceptance of issue 28: a conversation saved as JSON mid-run resumes in a fresh process, and
// the strict test server (which answers lost reasoning state with the vendor's 400) accepts it.

const here = dirname(fileURLToPath(import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Body = Record<string, unknown>;

// What the resumed request must carry back, read from its body.
const stateOf: Record<string, (body: Body) => unknown> = {
  anthropic: (body) =>
    ((body['messages'] as Body[])[1]?.['content'] as Body[])[0],
  gemini: (body) =>
    (body['contents'] as { parts: Body[] }[])[1]?.parts.find(
      (part) => 'functionCall' in part,
    )?.['thoughtSignature'],
  'openai-responses': (body) =>
    (body['input'] as Body[]).find((item) => item['type'] === 'reasoning')?.[
      'encrypted_content'
    ],
};

const expected: Record<string, unknown> = {
  anthropic: { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
  gemini: 'gsig-call',
  'openai-responses': 'sig-1',
};

describe('a conversation saved as JSON mid-run', () => {
  it.each(['anthropic', 'gemini', 'openai-responses'])(
    '%s: resumes in a fresh process with its reasoning intact',
    async (wire) => {
      const server = new LlmTestServer({ strict: true });
      server.conversation('weather', (c) => {
        c.step('ask')
          .whenUser('weather')
          .thinks([
            { type: 'thinking', thinking: 'Look it up.', signature: 'sig-1' },
          ])
          .callsTools([
            {
              id: 'call_1',
              name: 'get_weather',
              args: { city: 'Paris' },
              thoughtSignature: 'gsig-call',
            },
          ]);
        c.step('answer')
          .whenToolResult('get_weather', 'call_1', 'ok')
          .responds('Sunny.')
          .complete();
      });
      const { url, close } = await server.start();
      cleanups.push(close);
      const registry = new ToolRegistry();
      cleanups.push(() => {
        registry.shutdown();
      });
      registry.register(
        defineTool({
          name: 'get_weather',
          description: 'The weather in a city',
          input: z.object({ city: z.string() }),
          run: ({ city }) => ToolResponse.success(`sunny in ${city}`),
        }),
      );
      // Stopped after the tool ran, before the model saw its result.
      const stopped = await new Agent({
        model: resumeModel(wire, url),
        registry,
        maxSteps: 1,
      }).run('weather in Paris?');
      expect(stopped.stopReason).toBe('max_steps');
      const dir = mkdtempSync(join(tmpdir(), 'candor-resume-'));
      cleanups.push(() => {
        rmSync(dir, { recursive: true, force: true });
      });
      const file = join(dir, 'conversation.json');
      writeFileSync(file, JSON.stringify(stopped.messages));

      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          '--conditions=@candor/source',
          join(here, '__fixtures__', 'resume-run.ts'),
          wire,
          url,
          file,
        ],
        { cwd: here },
      );
      expect(JSON.parse(stdout.trim())).toEqual({
        stopReason: 'completed',
        text: 'Sunny.',
      });
      expect(server.journal.map((attempt) => attempt.status)).toEqual([
        200, 200,
      ]);
      expect(stateOf[wire]?.(server.journal[1]?.body as Body)).toEqual(
        expected[wire],
      );
      server.assertNoUnmatched();
    },
  );
});
