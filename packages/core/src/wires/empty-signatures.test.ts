import { ToolRegistry } from '@candor/registry';
import { expect, it, onTestFinished } from 'vitest';
import { Agent } from '../agent.ts';
import { type ChatMessage } from '../chat-model.ts';
import { anthropic } from './anthropic/anthropic.ts';
import { gemini } from './gemini/gemini.ts';
import { serveAnswers } from './loopback-server.case.ts';

// A hand-edited history with an empty signature: an empty string is no signature, so it is not
// sent as one (Anthropic and Gemini reject an empty signature as invalid).

function history(providerData: Record<string, unknown>): ChatMessage[] {
  return [
    { role: 'user', content: 'hi' },
    {
      role: 'assistant',
      content: 'Hello',
      toolCalls: [],
      parts: [
        { type: 'reasoning', text: 'thinking', providerData },
        { type: 'text', text: 'Hello', providerData },
      ],
    },
    { role: 'user', content: 'again' },
  ] as unknown as ChatMessage[];
}

it('anthropic sends no thinking block with an empty signature', async () => {
  const server = await serveAnswers([{ status: 400, body: {} }]);
  onTestFinished(server.close);
  await new Agent({
    model: anthropic({ baseURL: server.url, apiKey: 'sk-ant-t', model: 'c' }),
    registry: new ToolRegistry(),
  }).run(history({ anthropic: { signature: '' } }));
  const body = JSON.stringify(server.requests[0]?.body);
  expect(body).not.toContain('"signature"');
  expect(body).not.toContain('"thinking"');
});

it('gemini sends no empty thoughtSignature', async () => {
  const server = await serveAnswers([{ status: 400, body: {} }]);
  onTestFinished(server.close);
  await new Agent({
    model: gemini({ baseURL: server.url, apiKey: 'g-test-key', model: 'g' }),
    registry: new ToolRegistry(),
  }).run(history({ google: { thoughtSignature: '' } }));
  expect(JSON.stringify(server.requests[0]?.body)).not.toContain(
    'thoughtSignature',
  );
});
