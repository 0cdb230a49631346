import { ToolRegistry } from '@candor/registry';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../agent.ts';
import { type ChatModel } from '../chat-model.ts';
import { anthropic } from './anthropic/anthropic.ts';
import { serveAnswers } from './loopback-server.case.ts';
import { openaiCompatible } from './openai-compatible/openai-compatible.ts';

const registry = new ToolRegistry();

// In-stream error frames as each vendor documents them, after a first text chunk (so no retry):
// https://platform.claude.com/docs/en/build-with-claude/streaming#error-events and
// https://platform.openai.com/docs/api-reference/chat-streaming (an `error` object in a frame).
const cases: {
  name: string;
  make: (url: string) => ChatModel;
  sse: string;
  code: string;
}[] = [
  {
    name: 'anthropic',
    make: (url) => anthropic({ baseURL: url, apiKey: 'k', model: 'c' }),
    sse:
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":3}}}\n\n' +
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n' +
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    code: 'overloaded_error',
  },
  {
    name: 'openai-compatible',
    make: (url) => openaiCompatible({ baseURL: `${url}/v1`, model: 'm' }),
    sse:
      'data: {"id":"x","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n' +
      'data: {"error":{"message":"The server had an error","type":"server_error","code":"server_error"}}\n\n',
    code: 'server_error',
  },
];

describe.each(cases)('an in-stream error on the $name wire', (wire) => {
  it('is a stream error that keeps the provider’s code, and is not retried after a chunk', async () => {
    const server = await serveAnswers([{ sse: wire.sse }, { sse: wire.sse }]);
    onTestFinished(server.close);
    const result = await new Agent({
      model: wire.make(server.url),
      registry,
    }).run('hi');
    expect(result.stopReason).toBe('model_error');
    expect(result.modelError?.kind).toBe('stream');
    expect(result.modelError?.code).toBe(wire.code);
    expect(result.steps.at(-1)?.text).toBe('Hel');
    expect(server.requests).toHaveLength(1);
  });
});
