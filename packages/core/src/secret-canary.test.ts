import { ToolRegistry } from '@candor/registry';
import { LlmTestServer } from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.ts';
import { type ChatModel } from './chat-model.ts';
import { anthropic } from './wires/anthropic/anthropic.ts';
import { gemini } from './wires/gemini/gemini.ts';
import { openaiCompatible } from './wires/openai-compatible/openai-compatible.ts';

// Two canaries: one the model puts in an argument, one only a tool knows (under a secret key of
// its data). Neither may appear in any byte any surface captured.
const ARGUMENT_SECRET = 'sk-canary-7f3a91c2e4';
const DATA_SECRET = 'pw-canary-b58d0e6c11';

const SURFACES = [
  'pino log lines',
  'registry tool:start/tool:end events',
  'agent stream events',
  'approval gate requests',
  'OpenTelemetry spans (content recording on)',
  'OpenTelemetry metrics',
  'requests sent to the model',
  'the run result (steps, budget, messages)',
] as const;

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
  {
    name: 'gemini',
    model: (url) => gemini({ baseURL: url, apiKey: 'k', model: 'gemini-test' }),
  },
];

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Every tool gets the argument secret; each puts it (or its own) on a different path. */
function canaryTools(registry: ToolRegistry): void {
  const input = z.object({ apiKey: z.string(), target: z.string() });
  registry.register(
    defineTool({
      name: 'deploy',
      description: 'Echoes the key in its text and returns it in its data',
      input,
      run: ({ apiKey, target }) =>
        ToolResponse.success(`deployed ${target} with ${apiKey}`, {
          data: { target, token: apiKey, echo: `key=${apiKey}` },
        }),
    }),
  );
  registry.register(
    defineTool({
      name: 'publish',
      description: 'Throws a message carrying the key',
      input,
      run: ({ apiKey }) => {
        throw new Error(`401 Unauthorized for key ${apiKey}`);
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'check',
      description: 'Fails with the key in its text, details and stderr',
      input,
      run: ({ apiKey }) =>
        ToolResponse.error('EXECUTION_ERROR', 'The check failed', {
          text: `The check failed\ncurl -H "x-api-key: ${apiKey}" returned 403`,
          details: { header: `x-api-key: ${apiKey}` },
          data: { stdout: '', stderr: `denied: ${apiKey}`, exitCode: 1 },
        }),
    }),
  );
  registry.register(
    defineTool({
      name: 'vault',
      description: 'Returns a password only it knows, in data and text',
      input: z.object({ name: z.string() }),
      run: ({ name }) =>
        ToolResponse.success(`the password of ${name} is ${DATA_SECRET}`, {
          data: { name, password: DATA_SECRET },
        }),
    }),
  );
  registry.register(
    defineTool({
      name: 'vault_json',
      description:
        'Returns the password only as data, so the model reads it as JSON',
      input: z.object({ name: z.string() }),
      run: ({ name }) =>
        ToolResponse.success('', {
          data: { name, credentials: { password: DATA_SECRET } },
        }),
    }),
  );
}

describe('secret canary', () => {
  it.each(wires)(
    `$name: no secret from arguments, data, thrown message or text reaches ${SURFACES.join(', ')}`,
    async (wire) => {
      const captured: string[] = [];
      const capture = (value: unknown): void => {
        captured.push(
          typeof value === 'string'
            ? value
            : JSON.stringify(value, (_key, item: unknown) =>
                typeof item === 'bigint' ? item.toString() : item,
              ),
        );
      };

      const contextManager = new AsyncLocalStorageContextManager().enable();
      context.setGlobalContextManager(contextManager);
      const spans = new InMemorySpanExporter();
      const tracerProvider = new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(spans)],
      });
      const metrics = new InMemoryMetricExporter(
        AggregationTemporality.CUMULATIVE,
      );
      const reader = new PeriodicExportingMetricReader({
        exporter: metrics,
        exportIntervalMillis: 60_000,
      });
      const meterProvider = new MeterProvider({ readers: [reader] });
      cleanups.push(async () => {
        await tracerProvider.shutdown();
        await meterProvider.shutdown();
        context.disable();
      });
      const tracer = tracerProvider.getTracer('canary');
      const meter = meterProvider.getMeter('canary');
      const logger = pino(
        { level: 'trace' },
        {
          write: (line: string) => {
            captured.push(line);
          },
        },
      );

      const server = new LlmTestServer();
      const args = { apiKey: ARGUMENT_SECRET, target: 'prod' };
      server.conversation('canary', (c) => {
        c.step('call')
          .whenUser(/Deploy/)
          .callsTools([
            { id: 'call_1', name: 'deploy', args },
            { id: 'call_2', name: 'publish', args },
            { id: 'call_3', name: 'check', args },
            { id: 'call_4', name: 'vault', args: { name: 'db' } },
            { id: 'call_5', name: 'vault_json', args: { name: 'db' } },
          ]);
        c.step('answer').responds('Done.').complete();
      });
      server.conversation('budget', (c) => {
        c.step('fail again')
          .whenUser(/once more/)
          .callsTools([{ id: 'call_6', name: 'publish', args }]);
      });
      const { url, close } = await server.start();
      cleanups.push(close);

      const registry = new ToolRegistry({
        logger,
        telemetry: { tracer, meter },
        approve: (request) => {
          capture(request);
          return true;
        },
      });
      cleanups.push(() => {
        registry.shutdown();
      });
      canaryTools(registry);
      registry.on('tool:start', capture);
      registry.on('tool:end', capture);

      const agent = new Agent({
        model: wire.model(url),
        registry,
        logger,
        telemetry: { tracer, meter, recordContent: true },
        errorBudget: { maxErrors: 10, maxConsecutiveErrors: 10 },
      });
      let result: unknown;
      for await (const event of agent.stream('Deploy, publish and check.')) {
        capture(event);
        if (event.type === 'done') result = event.result;
      }
      capture(result);
      // A second run that the error budget stops, so its recorded errors are searched too.
      const budgeted = new Agent({
        model: wire.model(url),
        registry,
        logger,
        telemetry: { tracer, meter, recordContent: true },
        errorBudget: { maxErrors: 1 },
      });
      const stopped = await budgeted.run('Publish once more.');
      capture(stopped);
      await reader.forceFlush();
      capture(
        spans.getFinishedSpans().map((span) => ({
          name: span.name,
          attributes: span.attributes,
          events: span.events,
          status: span.status,
        })),
      );
      capture(metrics.getMetrics());
      for (const attempt of server.journal) capture(attempt.body);

      // The run really went through every path: otherwise 0 hits would prove nothing.
      expect(result).toMatchObject({ stopReason: 'completed' });
      const all = captured.join('\n');
      for (const path of [
        'deploy',
        'publish',
        'check',
        'vault',
        '401 Unauthorized for key [REDACTED]',
        'the password of db is [REDACTED]',
        'denied: [REDACTED]',
        '"credentials":"[REDACTED]"',
      ]) {
        expect(all.includes(path), path).toBe(true);
      }
      expect(stopped.stopReason).toBe('error_budget');
      expect(stopped.budget?.lastErrors).toHaveLength(1);
      expect(server.journal.length).toBe(3);
      expect(spans.getFinishedSpans().length).toBeGreaterThanOrEqual(8);

      const hits = (secret: string) => all.split(secret).length - 1;
      expect(hits(ARGUMENT_SECRET)).toBe(0);
      expect(hits(DATA_SECRET)).toBe(0);
    },
  );
});
