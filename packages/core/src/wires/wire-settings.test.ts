import { ToolRegistry } from '@candor/registry';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../agent.ts';
import { type CallSettings, type ChatModel } from '../chat-model.ts';
import { anthropic } from './anthropic/anthropic.ts';
import { gemini } from './gemini/gemini.ts';
import { serveAnswers } from './loopback-server.case.ts';
import { openaiCompatible } from './openai-compatible/openai-compatible.ts';

const registry = new ToolRegistry();

/** One wire under test: how to make it, and where its body keeps each setting. */
interface SettingsWire {
  readonly name: string;
  make(url: string, settings: CallSettings): ChatModel;
  /** The settings as the wire named them in the body. */
  fields(body: Record<string, unknown>): Record<string, unknown>;
  /** A 400 in the vendor's own shape, refusing `temperature`. */
  readonly refusal: unknown;
}

const wires: SettingsWire[] = [
  {
    name: 'anthropic',
    make: (url, settings) =>
      anthropic({
        baseURL: url,
        apiKey: 'k',
        model: 'claude-test',
        ...settings,
      }),
    fields: (body) => ({
      temperature: body['temperature'],
      topP: body['top_p'],
      maxOutputTokens: body['max_tokens'],
      stopSequences: body['stop_sequences'],
    }),
    refusal: {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'temperature may only be set to 1 when thinking is enabled',
      },
    },
  },
  {
    name: 'gemini',
    make: (url, settings) =>
      gemini({ baseURL: url, apiKey: 'k', model: 'gemini-test', ...settings }),
    fields: (body) => {
      const config = body['generationConfig'] as Record<string, unknown>;
      return {
        temperature: config['temperature'],
        topP: config['topP'],
        maxOutputTokens: config['maxOutputTokens'],
        stopSequences: config['stopSequences'],
        seed: config['seed'],
      };
    },
    refusal: {
      error: {
        code: 400,
        message: 'temperature is not supported for this model',
        status: 'INVALID_ARGUMENT',
      },
    },
  },
  {
    name: 'openai-compatible',
    make: (url, settings) =>
      openaiCompatible({ baseURL: url, model: 'gpt-test', ...settings }),
    fields: (body) => ({
      temperature: body['temperature'],
      topP: body['top_p'],
      maxOutputTokens: body['max_tokens'],
      stopSequences: body['stop'],
      seed: body['seed'],
    }),
    refusal: {
      error: {
        message:
          "Unsupported parameter: 'temperature' is not supported with this model.",
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'unsupported_parameter',
      },
    },
  },
];

const WIRE_KEY: Record<string, string> = {
  anthropic: 'anthropic',
  gemini: 'google',
  'openai-compatible': 'openaiCompatible',
};

describe.each(wires)('call settings on the $name wire', (wire) => {
  it('sends the model’s settings under the vendor’s names, the run’s winning key by key, providerOptions last', async () => {
    const server = await serveAnswers([{ status: 400, body: wire.refusal }]);
    onTestFinished(server.close);
    const seed = wire.name === 'anthropic' ? {} : { seed: 7 };
    const key = WIRE_KEY[wire.name] ?? '';
    const model = wire.make(server.url, {
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 300,
      ...seed,
      providerOptions: { [key]: { extra_flag: 'model', kept: true } },
    });
    const result = await new Agent({ model, registry }).run('hi', {
      settings: {
        temperature: 0.7,
        stopSequences: ['END'],
        providerOptions: { [key]: { extra_flag: 'run' }, other: { x: 1 } },
      },
    });
    const body = server.requests[0]?.body ?? {};
    expect(wire.fields(body)).toEqual({
      temperature: 0.7,
      topP: 0.9,
      maxOutputTokens: 300,
      stopSequences: ['END'],
      ...seed,
    });
    expect(body['extra_flag']).toBe('run');
    expect(body['kept']).toBe(true);
    // Another wire's options never reach this vendor.
    expect(body['x']).toBeUndefined();
    // The vendor's rule, in the vendor's words: nothing guessed on this side.
    expect(result.stopReason).toBe('model_error');
    expect(result.modelError?.status).toBe(400);
    expect(result.modelError?.message).toContain('temperature');
  });

  it('checks the model’s settings when it is made', () => {
    expect(() => wire.make('http://127.0.0.1:1', { topP: 2 })).toThrow(
      RangeError,
    );
    expect(() =>
      wire.make('http://127.0.0.1:1', { stopSequences: [''] }),
    ).toThrow(/stopSequences must be an array of non-empty strings/);
  });
});

describe('anthropic call settings', () => {
  it('keeps maxTokens as an alias of maxOutputTokens and refuses a seed', async () => {
    const server = await serveAnswers([
      { status: 400, body: {} },
      { status: 400, body: {} },
    ]);
    onTestFinished(server.close);
    await new Agent({
      model: anthropic({
        baseURL: server.url,
        apiKey: 'k',
        model: 'c',
        maxTokens: 64,
      }),
      registry,
    }).run('hi');
    expect(server.requests[0]?.body['max_tokens']).toBe(64);
    expect(() =>
      anthropic({ baseURL: server.url, apiKey: 'k', model: 'c', seed: 1 }),
    ).toThrow(/the Messages API has no seed/);
    const run = await new Agent({
      model: anthropic({ baseURL: server.url, apiKey: 'k', model: 'c' }),
      registry,
    }).run('hi', { settings: { seed: 3 } });
    expect(run.stopReason).toBe('model_error');
    expect(run.modelError?.message).toMatch(/no seed/);
    expect(server.requests).toHaveLength(1);
  });
});
