import { ToolRegistry } from '@candor/registry';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../agent.ts';
import { type ChatMessage, type ChatModel } from '../chat-model.ts';
import { anthropic } from './anthropic/anthropic.ts';
import { gemini } from './gemini/gemini.ts';
import { serveAnswers } from './loopback-server.case.ts';
import { openaiCompatible } from './openai-compatible/openai-compatible.ts';
import { openaiResponses } from './openai-responses/openai-responses.ts';

// A conversation carrying every vendor's opaque state, saved as JSON and sent to each wire:
// each request carries its own vendor's state and never another's.

const ANT = 'SIG_ANTHROPIC_x1';
const GOO = 'SIG_GOOGLE_x2';
const OAI = 'ENC_OPENAI_x3';
const EXTRA = 'EXTRA_COMPAT_x4';

const turn = (id: string): ChatMessage =>
  ({
    role: 'assistant',
    content: '',
    toolCalls: [{ id, name: 'calc', arguments: '{"a":1}' }],
    parts: [
      {
        type: 'reasoning',
        text: 'a',
        providerData: { anthropic: { signature: ANT } },
      },
      {
        type: 'reasoning',
        text: 'b',
        providerData: { google: { thoughtSignature: GOO } },
      },
      {
        type: 'reasoning',
        text: '',
        providerData: {
          openai: { id: 'rs_1', encrypted_content: OAI, summary: [] },
        },
      },
      {
        type: 'tool-call',
        call: {
          id,
          name: 'calc',
          arguments: '{"a":1}',
          providerData: {
            openaiCompatible: {
              extraContent: { google: { thought_signature: EXTRA } },
            },
          },
        },
      },
    ],
  }) as unknown as ChatMessage;

const saved: ChatMessage[] = JSON.parse(
  JSON.stringify([
    { role: 'user', content: 'add' },
    turn('call_1'),
    {
      role: 'tool',
      results: [
        { callId: 'call_1', toolName: 'calc', content: '2', isError: false },
      ],
    },
  ]),
) as ChatMessage[];

const wires: {
  name: string;
  own: readonly string[];
  make: (u: string) => ChatModel;
}[] = [
  {
    name: 'anthropic',
    own: [ANT],
    make: (baseURL) => anthropic({ baseURL, apiKey: 'sk-ant-t', model: 'c' }),
  },
  {
    name: 'gemini',
    own: [GOO],
    make: (baseURL) => gemini({ baseURL, apiKey: 'g-test-key', model: 'g' }),
  },
  {
    name: 'openaiResponses',
    own: [OAI],
    make: (baseURL) => openaiResponses({ baseURL, apiKey: 'sk-t', model: 'o' }),
  },
  {
    name: 'openaiCompatible',
    own: [EXTRA],
    make: (baseURL) =>
      openaiCompatible({ baseURL, apiKey: 'sk-t', model: 'o' }),
  },
];

describe.each(wires)('a saved conversation sent to $name', ({ own, make }) => {
  it('carries its own vendor’s state and no other', async () => {
    const server = await serveAnswers([{ status: 400, body: {} }]);
    onTestFinished(server.close);
    await new Agent({
      model: make(server.url),
      registry: new ToolRegistry(),
    }).run(saved);
    const body = JSON.stringify(server.requests[0]?.body);
    for (const value of [ANT, GOO, OAI, EXTRA])
      if (own.includes(value)) expect(body).toContain(value);
      else expect(body).not.toContain(value);
  });
});
