import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../agent.ts';
import { type ModelEvent } from '../../chat-model.ts';
import { gemini } from './gemini.ts';
import { toGeminiSchema } from './prepare-gemini-tools.ts';

/** One scripted answer: an SSE capture from __fixtures__, or an HTTP error body. */
type Answer =
  | { readonly fixture: string }
  | { readonly status: number; readonly body: unknown };

interface Recorded {
  readonly url: string;
  readonly body: {
    contents: { role: string; parts: Record<string, unknown>[] }[];
  };
}

function capture(name: string): string {
  return readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), 'utf8');
}

let server: Server | undefined;

afterEach(async () => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/** A loopback server that answers requests in order and records what they carried. */
async function serve(
  answers: Answer[],
): Promise<{ url: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        url: req.url ?? '',
        body: JSON.parse(
          Buffer.concat(chunks).toString('utf8'),
        ) as Recorded['body'],
      });
      const answer = answers.shift();
      if (answer === undefined || 'status' in answer) {
        res.writeHead(answer?.status ?? 500, {
          'content-type': 'application/json',
        });
        res.end(JSON.stringify(answer?.body ?? { error: 'no answer' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(capture(answer.fixture));
    });
  });
  const running = server;
  await new Promise<void>((resolve) => running.listen(0, '127.0.0.1', resolve));
  const { port } = running.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}`, requests };
}

async function events(url: string, sleep?: (ms: number) => Promise<void>) {
  const model = gemini({
    baseURL: url,
    apiKey: 'k',
    model: 'gemini-2.5-flash',
    ...(sleep === undefined ? {} : { sleep }),
  });
  const seen: ModelEvent[] = [];
  for await (const event of model.stream({
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
  }))
    seen.push(event);
  return seen;
}

function calculator(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Adds two numbers, or fails on request',
      input: z.object({
        a: z.number(),
        b: z.number(),
        mode: z.enum(['ok', 'fail']).default('ok'),
      }),
      run: ({ a, b, mode }) =>
        mode === 'fail'
          ? ToolResponse.error('EXECUTION_ERROR', 'Division by zero')
          : ToolResponse.success(String(a + b)),
    }),
  );
  return registry;
}

describe('the Gemini wire against hand-written captures', () => {
  it('streams text and reads usage from the last frame', async () => {
    const { url, requests } = await serve([{ fixture: 'text.sse' }]);
    expect(await events(url)).toEqual([
      { type: 'text-delta', text: 'The weather in' },
      { type: 'text-delta', text: ' Boston is sunny.' },
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 9, outputTokens: 7 },
        response: { id: 'a1', model: 'gemini-2.5-flash' },
      },
    ]);
    expect(requests[0]?.url).toBe(
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
  });

  it('gives id-less calls synthetic ids, never sends them back, and sends errors as an error object with the code', async () => {
    const { url, requests } = await serve([
      { fixture: 'parallel-calls-without-ids.sse' },
      { fixture: 'text.sse' },
    ]);
    const registry = calculator();
    const result = await new Agent({
      model: gemini({ baseURL: url, apiKey: 'k', model: 'gemini-2.5-flash' }),
      registry,
    }).run('add, then divide');
    registry.shutdown();
    expect(result.stopReason).toBe('completed');
    const ids = result.steps[0]?.toolCalls.map((entry) => entry.call.id);
    expect(ids).toEqual(['candor-gemini-call-1', 'candor-gemini-call-2']);
    expect(requests[1]?.body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'calc', args: { a: 2, b: 3 } } },
          {
            functionCall: {
              name: 'calc',
              args: { a: 1, b: 0, mode: 'fail' },
            },
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: { name: 'calc', response: { output: '5' } },
          },
          {
            functionResponse: {
              name: 'calc',
              response: {
                error: {
                  code: 'EXECUTION_ERROR',
                  message:
                    '[EXECUTION_ERROR] Division by zero\nRetrying the same call will not help: change the arguments or the approach.',
                },
              },
            },
          },
        ],
      },
    ]);
  });

  it('maps a SAFETY stop to content_filter and does not run the call before it', async () => {
    const { url } = await serve([{ fixture: 'safety-stop.sse' }]);
    expect(await events(url)).toEqual([
      {
        type: 'finish',
        finishReason: 'content_filter',
        usage: { inputTokens: 12, outputTokens: 0 },
        response: { id: 'c3', model: 'gemini-2.5-flash' },
      },
    ]);
  });

  it('maps a blocked prompt (no candidates) to content_filter', async () => {
    const { url } = await serve([{ fixture: 'prompt-blocked.sse' }]);
    const seen = await events(url);
    expect(seen.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'content_filter',
    });
  });

  it('treats a stream cut before its finishReason as incomplete', async () => {
    const { url } = await serve([{ fixture: 'cut-before-finish.sse' }]);
    await expect(events(url)).rejects.toMatchObject({
      name: 'ModelError',
      kind: 'incomplete',
    });
  });

  it('waits the retryDelay a 429 body asks for, then retries', async () => {
    const { url, requests } = await serve([
      {
        status: 429,
        body: {
          error: {
            code: 429,
            message: 'Resource has been exhausted (e.g. check quota).',
            status: 'RESOURCE_EXHAUSTED',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.RetryInfo',
                retryDelay: '7s',
              },
            ],
          },
        },
      },
      { fixture: 'text.sse' },
    ]);
    const waits: number[] = [];
    const seen = await events(url, async (ms) => {
      waits.push(ms);
    });
    expect(waits).toEqual([7000]);
    expect(requests).toHaveLength(2);
    expect(seen.at(-1)).toMatchObject({ finishReason: 'stop' });
  });

  it('reports a 400 with Google’s status and message, without retrying', async () => {
    const { url, requests } = await serve([
      {
        status: 400,
        body: {
          error: {
            code: 400,
            message: 'API key not valid.',
            status: 'INVALID_ARGUMENT',
          },
        },
      },
    ]);
    await expect(events(url)).rejects.toMatchObject({
      kind: 'http',
      status: 400,
      message: 'gemini answered HTTP 400: INVALID_ARGUMENT: API key not valid.',
    });
    expect(requests).toHaveLength(1);
  });
});

describe('toGeminiSchema', () => {
  it('rewrites JSON Schema into Gemini’s OpenAPI subset', () => {
    const schema = z.toJSONSchema(
      z.object({
        city: z.string().describe('A city'),
        unit: z.literal('celsius'),
        days: z.number().int().min(1).max(7).nullable(),
        tags: z.array(z.string()).optional(),
      }),
      { io: 'input' },
    );
    expect(toGeminiSchema(schema)).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'A city' },
        unit: { type: 'string', enum: ['celsius'] },
        days: {
          type: 'integer',
          minimum: 1,
          maximum: 7,
          nullable: true,
        },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['city', 'unit', 'days'],
    });
  });
});
