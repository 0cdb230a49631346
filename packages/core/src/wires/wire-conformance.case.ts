import { ToolRegistry } from '@candor/registry';
import {
  deliveryFaults,
  LlmTestServer,
  type ConversationScript,
} from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent.ts';
import { type ChatModel } from '../chat-model.ts';
import { type RetryOptions } from '../retry-policy.ts';

/** One tool result as a request carried it, read back from the wire body. */
export interface WireToolResult {
  readonly id: string;
  /** The model-visible text. */
  readonly content: unknown;
  /** `true` where the wire has an error channel and used it; `undefined` otherwise. */
  readonly isError: boolean | undefined;
}

/** What the shared suite needs to know about one wire. */
export interface WireUnderTest {
  /** The suite's title, e.g. `openai-compatible`. */
  readonly name: string;
  /** The wire, pointed at a running `LlmTestServer`. */
  model(serverURL: string, retry: RetryOptions): ChatModel;
  /** The tool results one request body carried, in order. */
  toolResults(body: unknown): WireToolResult[];
  /** The tool declarations one request body carried, `undefined` when it carried none. */
  toolsSent(body: unknown): unknown;
  /** Whether the wire has an error flag or object for a failed call (OpenAI has none). */
  readonly hasErrorChannel: boolean;
  /** SSE frames the test server sends before the first one with content (0 for Gemini). */
  readonly framesBeforeContent: number;
  /** SSE frames the test server sends up to and including the first text delta. */
  readonly framesThroughFirstText: number;
  /** A retryable overload this provider answers with (Anthropic 529, Gemini 503, …). */
  readonly overloaded: {
    readonly status: number;
    readonly code: string;
    readonly message: string;
  };
  /** A 400 in this provider's words. */
  readonly badRequestCode: string;
}

let server: LlmTestServer | undefined;
let close: (() => Promise<void>) | undefined;
let registry: ToolRegistry | undefined;

afterEach(async () => {
  registry?.shutdown();
  await close?.();
  server = undefined;
  close = undefined;
});

async function setup(
  wire: WireUnderTest,
  script: (conversation: ConversationScript) => void,
  retry: RetryOptions = {},
): Promise<{ model: ChatModel; server: LlmTestServer }> {
  server = new LlmTestServer();
  server.conversation('test', script);
  const started = await server.start();
  close = started.close;
  return { model: wire.model(started.url, retry), server };
}

function calculatorRegistry(
  options: ConstructorParameters<typeof ToolRegistry>[0] = {},
) {
  registry = new ToolRegistry(options);
  let runs = 0;
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Adds two numbers, or fails on request',
      input: z.object({
        a: z.number(),
        b: z.number(),
        mode: z.enum(['ok', 'big', 'fail', 'flaky']).default('ok'),
      }),
      run: ({ a, b, mode }) => {
        runs += 1;
        switch (mode) {
          case 'ok':
            return ToolResponse.success(String(a + b));
          case 'big':
            return ToolResponse.partial((a + b).toExponential(2), {
              reason: 'truncated',
            });
          case 'fail':
            return ToolResponse.error('EXECUTION_ERROR', 'Division by zero');
          case 'flaky':
            return ToolResponse.error('API_ERROR', 'upstream 502');
        }
      },
    }),
  );
  return { registry, runs: () => runs };
}

const NO_RETRY_HINT =
  'Retrying the same call will not help: change the arguments or the approach.';

/**
 * Every acceptance case of the agent, over one wire against `@candor/testing`. Each wire's own
 * test file calls this with its {@link WireUnderTest}; a new wire runs the whole suite in a few
 * lines.
 */
export function runWireConformance(wire: WireUnderTest): void {
  describe(`the ${wire.name} wire (conformance)`, () => {
    // OpenAI has no error channel, so there only the content carries the code.
    const errorFlag = (isError: boolean): boolean | undefined =>
      wire.hasErrorChannel && isError ? true : undefined;

    it('runs a tool call that succeeds, then completes', async () => {
      const { model, server } = await setup(wire, (c) => {
        c.step('ask')
          .whenUser(/add/)
          .callsTools([{ id: 'call_a', name: 'calc', args: { a: 2, b: 12 } }]);
        c.step('answer').responds('It is 14.').complete();
      });
      const { registry } = calculatorRegistry();
      const result = await new Agent({ model, registry }).run('add 2 and 12');
      expect(result.stopReason).toBe('completed');
      expect(result.text).toBe('It is 14.');
      expect(wire.toolResults(server.journal[1]?.body)).toEqual([
        { id: 'call_a', content: '14', isError: undefined },
      ]);
      expect(result.usage.inputTokens).toBeGreaterThan(0);
      server.assertNoUnmatched();
    });

    it('flags a partial result, byte for byte', async () => {
      const { model, server } = await setup(wire, (c) => {
        c.step('ask').callsTools([
          { id: 'call_p', name: 'calc', args: { a: 1e11, b: 1, mode: 'big' } },
        ]);
        c.step('answer').responds('About 1e11.').complete();
      });
      await new Agent({ model, registry: calculatorRegistry().registry }).run(
        'big',
      );
      expect(wire.toolResults(server.journal[1]?.body)).toEqual([
        {
          id: 'call_p',
          content:
            '[INCOMPLETE RESULT: truncated] This result is incomplete; do not present it as complete.\n1.00e+11',
          isError: undefined,
        },
      ]);
    });

    it('sends an error with its code and is_error, and the model recovers', async () => {
      const { model, server } = await setup(wire, (c) => {
        c.step('ask').callsTools([
          { id: 'call_1', name: 'calc', args: { a: 1, b: 0, mode: 'fail' } },
        ]);
        c.step('fix').callsTools([
          { id: 'call_2', name: 'calc', args: { a: 1, b: 1 } },
        ]);
        c.step('answer').responds('2.').complete();
      });
      const result = await new Agent({
        model,
        registry: calculatorRegistry().registry,
      }).run('divide');
      expect(result.stopReason).toBe('completed');
      expect(wire.toolResults(server.journal[1]?.body)).toEqual([
        {
          id: 'call_1',
          content: `[EXECUTION_ERROR] Division by zero\n${NO_RETRY_HINT}`,
          isError: errorFlag(true),
        },
      ]);
      expect(wire.toolResults(server.journal[2]?.body).at(-1)).toEqual({
        id: 'call_2',
        content: '2',
        isError: undefined,
      });
    });

    it('sends a denial without is_error, saying the call did not run', async () => {
      const { model, server } = await setup(wire, (c) => {
        c.step('ask').callsTools([
          { id: 'call_d', name: 'calc', args: { a: 1, b: 1 } },
        ]);
        c.step('answer').responds('I was not allowed.').complete();
      });
      const { registry, runs } = calculatorRegistry({ approve: () => false });
      const result = await new Agent({ model, registry }).run('add');
      expect(result.stopReason).toBe('completed');
      expect(runs()).toBe(0);
      expect(wire.toolResults(server.journal[1]?.body)).toEqual([
        {
          id: 'call_d',
          content:
            '[DENIED] This call was NOT executed. The approval gate refused the call to "calc". Do not retry it unless the user asks.',
          isError: undefined,
        },
      ]);
    });

    it('tells the model about an open circuit and hides the tool', async () => {
      const { model, server } = await setup(wire, (c) => {
        c.step('one').callsTools([
          { id: 'call_1', name: 'calc', args: { a: 1, b: 1, mode: 'flaky' } },
        ]);
        c.step('two').callsTools([
          { id: 'call_2', name: 'calc', args: { a: 2, b: 2, mode: 'flaky' } },
        ]);
        c.step('three').callsTools([
          { id: 'call_3', name: 'calc', args: { a: 3, b: 3 } },
        ]);
        c.step('answer').responds('The calculator is down.').complete();
      });
      const { registry, runs } = calculatorRegistry({
        breaker: { minimumCalls: 2, resetTimeoutMs: 45_000 },
      });
      const result = await new Agent({
        model,
        registry,
        errorBudget: { maxConsecutiveErrors: 5 },
      }).run('add');
      expect(result.stopReason).toBe('completed');
      expect(runs()).toBe(2);
      expect(wire.toolResults(server.journal[3]?.body).at(-1)).toEqual({
        id: 'call_3',
        content:
          '[CIRCUIT_OPEN] The tool "calc" is unavailable for 45 s after repeated failures; it was not run. Use another way to proceed.',
        isError: errorFlag(true),
      });
      expect(wire.toolsSent(server.journal[3]?.body)).toBeUndefined();
    });

    it('stops on the error budget', async () => {
      const { model, server } = await setup(wire, (c) => {
        for (let index = 1; index <= 5; index++) {
          c.step(`try${index}`).callsTools([
            {
              id: `call_${index}`,
              name: 'calc',
              args: { a: index, b: 0, mode: 'fail' },
            },
          ]);
        }
      });
      const result = await new Agent({
        model,
        registry: calculatorRegistry().registry,
      }).run('divide');
      expect(result.stopReason).toBe('error_budget');
      expect(result.budget?.exhausted).toBe('max_consecutive_errors');
      expect(server.journal).toHaveLength(3);
    });

    it('retries an overload before any chunk, waiting the capped retry-after', async () => {
      const waits: number[] = [];
      const { model, server } = await setup(
        wire,
        (c) => {
          c.step('answer')
            .fails(
              wire.overloaded.status,
              wire.overloaded.code,
              wire.overloaded.message,
              { headers: { 'retry-after': '120' } },
            )
            .responds('Fine now.')
            .complete();
        },
        {
          maxRetryDelayMs: 2000,
          sleep: async (ms) => {
            waits.push(ms);
          },
        },
      );
      const result = await new Agent({
        model,
        registry: calculatorRegistry().registry,
      }).run('hello');
      expect(result.stopReason).toBe('completed');
      expect(result.text).toBe('Fine now.');
      expect(waits).toEqual([2000]);
      expect(server.journal.map((attempt) => attempt.status)).toEqual([
        wire.overloaded.status,
        200,
      ]);
    });

    it('does not retry a 400, and reports the provider’s message', async () => {
      const { model, server } = await setup(wire, (c) => {
        c.step('answer')
          .fails(400, wire.badRequestCode, 'max_tokens is too large')
          .responds('never');
      });
      const result = await new Agent({
        model,
        registry: calculatorRegistry().registry,
      }).run('hello');
      expect(result.stopReason).toBe('model_error');
      expect(result.modelError?.status).toBe(400);
      expect(result.modelError?.message).toContain('max_tokens is too large');
      expect(server.journal).toHaveLength(1);
    });

    it('retries a stream that breaks before its first content chunk', async () => {
      const waits: number[] = [];
      const { model, server } = await setup(
        wire,
        (c) => {
          c.step('answer')
            .deliversWith(
              deliveryFaults.abortAfterFrames(wire.framesBeforeContent),
            )
            .responds('Recovered.')
            .complete();
        },
        { sleep: async (ms) => void waits.push(ms), random: () => 0 },
      );
      const result = await new Agent({
        model,
        registry: calculatorRegistry().registry,
      }).run('hello');
      expect(result.text).toBe('Recovered.');
      expect(waits).toEqual([500]);
      expect(server.journal).toHaveLength(2);
    });

    it('never retries after the first chunk: an abort there is a model_error', async () => {
      const framesThroughFirstText = wire.framesThroughFirstText;
      const { model, server } = await setup(
        wire,
        (c) => {
          c.step('answer')
            .deliversWith(
              deliveryFaults.abortAfterFrames(framesThroughFirstText),
            )
            .responds('This answer is long enough to come in several pieces.');
        },
        { sleep: async () => undefined },
      );
      const deltas: string[] = [];
      let result;
      for await (const event of new Agent({
        model,
        registry: calculatorRegistry().registry,
      }).stream('hello')) {
        if (event.type === 'text-delta') deltas.push(event.text);
        if (event.type === 'done') result = event.result;
      }
      expect(deltas.length).toBeGreaterThanOrEqual(1);
      expect(result?.stopReason).toBe('model_error');
      expect(server.journal).toHaveLength(1);
    });

    it('treats a stream without its terminal frame as incomplete, and never runs its half tool call', async () => {
      const { model, server } = await setup(
        wire,
        (c) => {
          c.step('ask')
            .deliversWith(deliveryFaults.noTerminalFrame())
            .callsTools([{ id: 'call_x', name: 'calc', args: { a: 1, b: 2 } }]);
        },
        { sleep: async () => undefined },
      );
      const { registry, runs } = calculatorRegistry();
      const result = await new Agent({ model, registry }).run('add');
      expect(result.stopReason).toBe('model_error');
      expect(result.modelError?.kind).toBe('incomplete');
      expect(runs()).toBe(0);
      expect(server.journal).toHaveLength(1);
    });

    it('runs parallel tool calls and sends the results back in call order', async () => {
      const { model, server } = await setup(wire, (c) => {
        c.step('ask').callsTools([
          { id: 'call_1', name: 'calc', args: { a: 1, b: 1 } },
          { id: 'call_2', name: 'calc', args: { a: 2, b: 2, mode: 'fail' } },
          { id: 'call_3', name: 'calc', args: { a: 3, b: 3 } },
        ]);
        c.step('answer').responds('Done.').complete();
      });
      const result = await new Agent({
        model,
        registry: calculatorRegistry().registry,
      }).run('add three');
      expect(result.stopReason).toBe('completed');
      expect(wire.toolResults(server.journal[1]?.body)).toEqual([
        { id: 'call_1', content: '2', isError: undefined },
        {
          id: 'call_2',
          content: `[EXECUTION_ERROR] Division by zero\n${NO_RETRY_HINT}`,
          isError: errorFlag(true),
        },
        { id: 'call_3', content: '6', isError: undefined },
      ]);
    });
  });
}
