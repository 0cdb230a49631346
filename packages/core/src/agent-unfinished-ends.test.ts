import { defineTool, ToolResponse } from '@candor/tools';
import { ToolRegistry } from '@candor/registry';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.ts';
import { type ChatModel } from './chat-model.ts';
import { scriptedModel } from './scripted-model.ts';
import { anthropic } from './wires/anthropic/anthropic.ts';
import { gemini } from './wires/gemini/gemini.ts';
import { serveAnswers } from './wires/loopback-server.case.ts';
import { openaiCompatible } from './wires/openai-compatible/openai-compatible.ts';
import { openaiResponses } from './wires/openai-responses/openai-responses.ts';

// Ends that must never read as success: an answer cut at the output-token limit (text or a
// half tool call), a finish word Candor does not know, and a model that never says it finished.

const closers: (() => Promise<void>)[] = [];
let registry: ToolRegistry | undefined;
let ran = 0;

afterEach(async () => {
  registry?.shutdown();
  registry = undefined;
  ran = 0;
  await Promise.all(closers.splice(0).map((close) => close()));
});

function agentFor(model: ChatModel): Agent {
  registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'write',
      description: 'Writes a file',
      input: z.object({ path: z.string() }),
      run: () => {
        ran += 1;
        return ToolResponse.success('written');
      },
    }),
  );
  return new Agent({ model, registry });
}

const sse = (frames: readonly unknown[], done = false): string =>
  frames.map((frame) => `data: ${JSON.stringify(frame)}\n\n`).join('') +
  (done ? 'data: [DONE]\n\n' : '');

const anthropicSse = (frames: readonly Record<string, unknown>[]): string =>
  frames
    .map((f) => `event: ${String(f['type'])}\ndata: ${JSON.stringify(f)}\n\n`)
    .join('');

const wires = {
  openaiCompatible: (baseURL: string) =>
    openaiCompatible({ baseURL, apiKey: 'sk-test', model: 'm' }),
  openaiResponses: (baseURL: string) =>
    openaiResponses({ baseURL, apiKey: 'sk-test', model: 'gpt-x' }),
  anthropic: (baseURL: string) =>
    anthropic({ baseURL, apiKey: 'sk-ant-test', model: 'claude' }),
  gemini: (baseURL: string) =>
    gemini({ baseURL, apiKey: 'g-test-key', model: 'gemini-x' }),
};

/** Serves one streamed answer on loopback and runs the agent over `wire` against it. */
async function runOver(
  wire: keyof typeof wires,
  sseText: string,
): ReturnType<Agent['run']> {
  const server = await serveAnswers([{ sse: sseText }]);
  closers.push(server.close);
  return agentFor(wires[wire](server.url)).run('go');
}

describe('a turn cut at the output-token limit', () => {
  it('ends the run length, never completed (scriptedModel)', async () => {
    const result = await agentFor(
      scriptedModel([{ text: 'The answer is', finishReason: 'length' }]),
    ).run('go');
    expect(result.stopReason).toBe('length');
    expect(result.text).toBe('The answer is');
  });

  it('runs no tool call of the cut turn and leaves it out of the history', async () => {
    const result = await agentFor(
      scriptedModel([
        {
          toolCalls: [{ name: 'write', arguments: { path: 'a' } }],
          finishReason: 'length',
        },
      ]),
    ).run('go');
    expect(result.stopReason).toBe('length');
    expect(ran).toBe(0);
    expect(result.messages.map((m) => m.role)).toEqual(['user']);
  });

  it('openaiCompatible: finish_reason length with a half tool call', async () => {
    const result = await runOver(
      'openaiCompatible',
      sse(
        [
          {
            choices: [
              {
                index: 0,
                delta: {
                  tool_calls: [
                    {
                      index: 0,
                      id: 'call_1',
                      type: 'function',
                      function: { name: 'write', arguments: '{"path":"a' },
                    },
                  ],
                },
                finish_reason: null,
              },
            ],
          },
          { choices: [{ index: 0, delta: {}, finish_reason: 'length' }] },
        ],
        true,
      ),
    );
    expect(result.stopReason).toBe('length');
    expect(ran).toBe(0);
  });

  it('anthropic: stop_reason max_tokens inside a tool_use block', async () => {
    const result = await runOver(
      'anthropic',
      anthropicSse([
        {
          type: 'message_start',
          message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 5 } },
        },
        {
          type: 'content_block_start',
          index: 0,
          content_block: {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'write',
            input: {},
          },
        },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"path":"a' },
        },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'message_delta',
          delta: { stop_reason: 'max_tokens' },
          usage: { output_tokens: 16 },
        },
        { type: 'message_stop' },
      ]),
    );
    expect(result.stopReason).toBe('length');
    expect(ran).toBe(0);
  });

  it('gemini: MAX_TOKENS', async () => {
    const result = await runOver(
      'gemini',
      sse([
        {
          candidates: [
            { content: { role: 'model', parts: [{ text: 'The answer' }] } },
          ],
        },
        {
          candidates: [
            {
              content: { role: 'model', parts: [{ text: ' is' }] },
              finishReason: 'MAX_TOKENS',
            },
          ],
        },
      ]),
    );
    expect(result.stopReason).toBe('length');
  });

  it('openaiResponses: response.incomplete with max_output_tokens', async () => {
    const result = await runOver(
      'openaiResponses',
      sse([
        {
          type: 'response.output_item.added',
          output_index: 0,
          item: {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            content: [],
          },
        },
        {
          type: 'response.output_text.delta',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          delta: 'The answer is',
        },
        {
          type: 'response.incomplete',
          response: {
            id: 'resp_1',
            status: 'incomplete',
            incomplete_details: { reason: 'max_output_tokens' },
          },
        },
      ]),
    );
    expect(result.stopReason).toBe('length');
  });
});

describe('an end Candor cannot read', () => {
  it('an unknown finish word is a model_error, never completed (scriptedModel)', async () => {
    const result = await agentFor(
      scriptedModel([{ text: 'Hmm', finishReason: 'other' }]),
    ).run('go');
    expect(result.stopReason).toBe('model_error');
    expect(result.modelError?.kind).toBe('incomplete');
  });

  it('anthropic: an unknown stop_reason', async () => {
    const result = await runOver(
      'anthropic',
      anthropicSse([
        { type: 'message_start', message: { usage: { input_tokens: 1 } } },
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: 'Paused' },
        },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'pause_turn' } },
        { type: 'message_stop' },
      ]),
    );
    expect(result.stopReason).toBe('model_error');
  });

  it('gemini: MALFORMED_FUNCTION_CALL with no call', async () => {
    const result = await runOver(
      'gemini',
      sse([
        {
          candidates: [
            {
              content: { role: 'model', parts: [{ text: '' }] },
              finishReason: 'MALFORMED_FUNCTION_CALL',
            },
          ],
        },
      ]),
    );
    expect(result.stopReason).toBe('model_error');
  });

  it('openaiCompatible: a server that sends no finish_reason and no call', async () => {
    const result = await runOver(
      'openaiCompatible',
      sse([{ choices: [{ index: 0, delta: { content: 'Hi' } }] }], true),
    );
    expect(result.stopReason).toBe('model_error');
  });

  it('a ChatModel that never emits finish', async () => {
    const model: ChatModel = {
      provider: 'custom',
      model: 'm',
      async *stream() {
        yield await Promise.resolve({
          type: 'text-delta',
          text: 'Hi',
        } as const);
      },
    };
    const result = await agentFor(model).run('go');
    expect(result.stopReason).toBe('model_error');
  });
});

describe('a turn blocked or refused with tool calls in it', () => {
  it('runs none of them and ends content_filter (scriptedModel)', async () => {
    const result = await agentFor(
      scriptedModel([
        {
          toolCalls: [{ name: 'write', arguments: { path: 'a' } }],
          finishReason: 'content_filter',
        },
      ]),
    ).run('go');
    expect(result.stopReason).toBe('content_filter');
    expect(ran).toBe(0);
  });

  it('anthropic: stop_reason refusal after a whole tool_use block', async () => {
    const result = await runOver(
      'anthropic',
      anthropicSse([
        { type: 'message_start', message: { usage: { input_tokens: 1 } } },
        {
          type: 'content_block_start',
          index: 0,
          content_block: {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'write',
            input: {},
          },
        },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"path":"a"}' },
        },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'refusal' } },
        { type: 'message_stop' },
      ]),
    );
    expect(result.stopReason).toBe('content_filter');
    expect(ran).toBe(0);
  });
});
