import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ToolRegistry } from '@candor/registry';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../agent.ts';
import { type ChatModel } from '../chat-model.ts';
import { anthropic } from './anthropic/anthropic.ts';
import { gemini } from './gemini/gemini.ts';
import { openaiCompatible } from './openai-compatible/openai-compatible.ts';
import { openaiResponses } from './openai-responses/openai-responses.ts';
import { UnendedSpans } from './wire-conformance-ends.case.ts';

// A caller who stops reading agent.stream() (break, throw, return) mid-answer, while the
// provider is still streaming: every span ends, and the HTTP response is closed, not left open.

const firstFrame: Record<string, string> = {
  anthropic:
    'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1}}}\n\n' +
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n',
  gemini:
    'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]}\n\n',
  openaiCompatible:
    'data: {"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}\n\n',
  openaiResponses:
    'data: {"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}\n\n' +
    'data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}\n\n',
};

const makers: Record<string, (baseURL: string) => ChatModel> = {
  anthropic: (baseURL) =>
    anthropic({ baseURL, apiKey: 'sk-ant-test', model: 'claude' }),
  gemini: (baseURL) =>
    gemini({ baseURL, apiKey: 'g-test-key', model: 'gemini-x' }),
  openaiCompatible: (baseURL) =>
    openaiCompatible({ baseURL, apiKey: 'sk-test', model: 'm' }),
  openaiResponses: (baseURL) =>
    openaiResponses({ baseURL, apiKey: 'sk-test', model: 'gpt-x' }),
};

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
});

async function hangingServer(
  frame: string,
): Promise<{ url: string; closed: Promise<unknown> }> {
  let open: ServerResponse | undefined;
  let resolveRes: (res: ServerResponse) => void = () => undefined;
  const responded = new Promise<ServerResponse>((r) => (resolveRes = r));
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame);
      open = res;
      resolveRes(res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  stop = () => {
    open?.destroy();
    server.close();
  };
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    closed: responded.then((res) => once(res, 'close')),
  };
}

describe.each(['break', 'throw', 'return'] as const)(
  'a caller who leaves stream() by %s mid-answer',
  (how) => {
    it.each(Object.keys(makers))('on %s', async (name) => {
      const { url, closed } = await hangingServer(firstFrame[name] ?? '');
      const spans = new UnendedSpans();
      const provider = new BasicTracerProvider({ spanProcessors: [spans] });
      const tracer = provider.getTracer('abandon');
      const registry = new ToolRegistry({ telemetry: { tracer } });
      const make = makers[name];
      if (make === undefined) throw new Error(`no wire ${name}`);
      const agent = new Agent({
        model: make(url),
        registry,
        telemetry: { tracer },
      });
      const read = async (): Promise<string> => {
        for await (const event of agent.stream('hi')) {
          if (event.type !== 'text-delta') continue;
          if (how === 'break') break;
          if (how === 'throw') throw new Error('caller gave up');
          return event.text;
        }
        return '';
      };
      await (how === 'throw'
        ? expect(read()).rejects.toThrow('caller gave up')
        : read());
      // The provider's response is closed by the client, not left streaming.
      await closed;
      registry.shutdown();
      expect(spans.open).toEqual([]);
      expect(spans.ended.filter((n) => n.startsWith('chat '))).toHaveLength(1);
      expect(spans.ended.some((n) => n.startsWith('invoke_agent'))).toBe(true);
    });
  },
);
