import { ToolRegistry } from '@candor/registry';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../agent.ts';
import { type CallSettings, type ChatModel } from '../chat-model.ts';
import { anthropic } from './anthropic/anthropic.ts';
import { gemini } from './gemini/gemini.ts';
import { serveAnswers } from './loopback-server.case.ts';
import { openaiCompatible } from './openai-compatible/openai-compatible.ts';
import { openaiResponses } from './openai-responses/openai-responses.ts';

// `providerOptions` is merged into the request body, but the fields the wire itself builds (the
// model, the conversation, the tools, streaming) are not Candor's to give away: a `stream: false`
// would break the parser, a `model` would make telemetry name another model, a conversation or a
// tool list laid over Candor's would send calls the registry never saw.

const wires: {
  readonly key: string;
  readonly field: string;
  readonly make: (url: string, settings?: CallSettings) => ChatModel;
}[] = [
  {
    key: 'anthropic',
    field: 'stream',
    make: (baseURL, s) =>
      anthropic({ baseURL, apiKey: 'sk-ant-test', model: 'claude', ...s }),
  },
  {
    key: 'google',
    field: 'contents',
    make: (baseURL, s) =>
      gemini({ baseURL, apiKey: 'g-test-key', model: 'gemini-x', ...s }),
  },
  {
    key: 'openaiCompatible',
    field: 'messages',
    make: (baseURL, s) =>
      openaiCompatible({ baseURL, apiKey: 'sk-test', model: 'm', ...s }),
  },
  {
    key: 'openai',
    field: 'input',
    make: (baseURL, s) =>
      openaiResponses({ baseURL, apiKey: 'sk-test', model: 'gpt-x', ...s }),
  },
];

describe.each(wires)('providerOptions.$key', ({ key, field, make }) => {
  it(`refuses ${field} on the model, naming it`, () => {
    expect(() =>
      make('http://127.0.0.1:9', {
        providerOptions: { [key]: { [field]: false } },
      }),
    ).toThrow(
      new RegExp(`providerOptions\\.${key}\\.${field} is set by Candor`),
    );
  });

  it(`refuses ${field} on a run, and sends no request`, async () => {
    const server = await serveAnswers([]);
    onTestFinished(server.close);
    const agent = new Agent({
      model: make(server.url),
      registry: new ToolRegistry(),
    });
    await expect(
      agent.run('hi', {
        settings: { providerOptions: { [key]: { [field]: [] } } },
      }),
    ).rejects.toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
  });
});
