import { ToolRegistry } from '@candor/registry';
import { LlmTestServer } from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, anthropic, gemini, openaiCompatible } from './index.ts';

const files: Record<string, string> = { 'notes.md': 'Buy milk.' };

const wires = [
  {
    name: 'OpenAI',
    model: (url: string) =>
      openaiCompatible({
        baseURL: `${url}/v1`,
        apiKey: 'k',
        model: 'gpt-test',
      }),
  },
  {
    name: 'Anthropic',
    model: (url: string) =>
      anthropic({ baseURL: url, apiKey: 'k', model: 'claude-test' }),
  },
  {
    name: 'Gemini',
    model: (url: string) =>
      gemini({ baseURL: url, apiKey: 'k', model: 'gemini-test' }),
  },
];

it.each(wires)(
  '$name: the agent reads NOT_FOUND and tries the other file',
  async ({ model }) => {
    // 1. Script the model on what Candor sends it: the code and the text of the result.
    const server = new LlmTestServer();
    const notes = server.conversation('notes', (c) => {
      c.step('read')
        .whenUser('notes')
        .callsTools([
          { id: 'call_1', name: 'read_file', args: { path: 'notes.txt' } },
        ]);
      c.step('other file')
        .whenLatestCode('NOT_FOUND')
        .whenLatestText(/No such file: notes\.txt/)
        .callsTools([
          { id: 'call_2', name: 'read_file', args: { path: 'notes.md' } },
        ]);
      c.step('answer')
        .whenLatestText('Buy milk.')
        .responds('Your notes say: buy milk.')
        .complete();
    });
    const { url, close } = await server.start();

    // 2. The Candor agent under test, on a real wire to the scripted server.
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'read_file',
        description: 'Reads a file',
        input: z.object({ path: z.string() }),
        run: ({ path }) => {
          const text = files[path];
          return text === undefined
            ? ToolResponse.error('NOT_FOUND', `No such file: ${path}`)
            : ToolResponse.success(text);
        },
      }),
    );
    const agent = new Agent({ model: model(url), registry });

    // 3. Run it: every step matched on the code and text Candor sent.
    try {
      const result = await agent.run('What do my notes say?');
      expect(result.stopReason).toBe('completed');
      expect(result.text).toBe('Your notes say: buy milk.');
      expect(notes.completed).toBe(true);
      server.assertNoUnmatched();
    } finally {
      registry.shutdown();
      await close();
    }
  },
);
