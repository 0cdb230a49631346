import { ToolRegistry } from '@candor/registry';
import { LlmTestServer } from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.ts';
import { type ChatModel } from './chat-model.ts';
import { scriptedModel } from './scripted-model.ts';
import { anthropic } from './wires/anthropic/anthropic.ts';
import { openaiCompatible } from './wires/openai-compatible/openai-compatible.ts';

const wires: readonly {
  readonly name: string;
  readonly model: (url: string) => ChatModel;
}[] = [
  {
    name: 'openai-compatible',
    model: (url) =>
      openaiCompatible({
        baseURL: `${url}/v1`,
        apiKey: 'k',
        model: 'gpt-test',
      }),
  },
  {
    name: 'anthropic',
    model: (url) =>
      anthropic({ baseURL: url, apiKey: 'k', model: 'claude-test' }),
  },
];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('AgentRunResult.messages', () => {
  it.each(wires)(
    '$name: a second turn continues from the first run’s messages',
    async (wire) => {
      const server = new LlmTestServer();
      server.conversation('math', (c) => {
        c.step('add')
          .whenUser(/2 \+ 3/)
          .callsTools([{ id: 'call_1', name: 'add', args: { a: 2, b: 3 } }]);
        c.step('answer').responds('It is 5.').complete();
      });
      server.conversation('double', (c) => {
        c.step('double')
          .whenUser(/double/)
          .callsTools([{ id: 'call_2', name: 'add', args: { a: 5, b: 5 } }]);
        c.step('answer again').responds('It is 10.').complete();
      });
      const { url, close } = await server.start();
      cleanups.push(close);
      const registry = new ToolRegistry();
      cleanups.push(() => {
        registry.shutdown();
      });
      registry.register(
        defineTool({
          name: 'add',
          description: 'Adds two numbers',
          input: z.object({ a: z.number(), b: z.number() }),
          run: ({ a, b }) => ToolResponse.success(String(a + b)),
        }),
      );
      const agent = new Agent({ model: wire.model(url), registry });

      const first = await agent.run('What is 2 + 3?');
      expect(first.stopReason).toBe('completed');
      expect(first.messages).toEqual([
        { role: 'user', content: 'What is 2 + 3?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_1', name: 'add', arguments: '{"a":2,"b":3}' },
          ],
          parts: [
            {
              type: 'tool-call',
              call: { id: 'call_1', name: 'add', arguments: '{"a":2,"b":3}' },
            },
          ],
        },
        {
          role: 'tool',
          results: [
            { callId: 'call_1', toolName: 'add', content: '5', isError: false },
          ],
        },
        {
          role: 'assistant',
          content: 'It is 5.',
          toolCalls: [],
          parts: [{ type: 'text', text: 'It is 5.' }],
        },
      ]);

      // The stream's done event carries the same history.
      let done: unknown;
      const second = agent.stream([
        ...first.messages,
        { role: 'user', content: 'Now double it.' },
      ]);
      for await (const event of second) {
        if (event.type === 'done') done = event.result;
      }
      expect(done).toMatchObject({
        stopReason: 'completed',
        text: 'It is 10.',
      });
      const messages = (done as { messages: unknown[] }).messages;
      expect(messages.slice(0, 4)).toEqual(first.messages);
      expect(messages.slice(4)).toEqual([
        { role: 'user', content: 'Now double it.' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_2', name: 'add', arguments: '{"a":5,"b":5}' },
          ],
          parts: [
            {
              type: 'tool-call',
              call: { id: 'call_2', name: 'add', arguments: '{"a":5,"b":5}' },
            },
          ],
        },
        {
          role: 'tool',
          results: [
            {
              callId: 'call_2',
              toolName: 'add',
              content: '10',
              isError: false,
            },
          ],
        },
        {
          role: 'assistant',
          content: 'It is 10.',
          toolCalls: [],
          parts: [{ type: 'text', text: 'It is 10.' }],
        },
      ]);
      // The provider accepted the replayed history: the first turn's call and result went out.
      const third = JSON.stringify(server.journal[2]?.body);
      expect(third).toContain('call_1');
      expect(third).toContain('It is 5.');
      server.assertNoUnmatched();
    },
  );

  it('leaves out an assistant turn whose tool calls were cut off by an abort', async () => {
    const controller = new AbortController();
    const registry = new ToolRegistry();
    cleanups.push(() => {
      registry.shutdown();
    });
    registry.register(
      defineTool({
        name: 'wait',
        description: 'Aborts the run while it runs',
        input: z.object({}),
        run: () => {
          controller.abort();
          return ToolResponse.success('late');
        },
      }),
    );
    const agent = new Agent({
      model: scriptedModel([
        { toolCalls: [{ id: 'c1', name: 'wait', arguments: {} }] },
      ]),
      registry,
    });
    const result = await agent.run('go', { signal: controller.signal });
    expect(result.stopReason).toBe('aborted');
    expect(result.messages).toEqual([{ role: 'user', content: 'go' }]);
  });
});
