import { describe, expect, it } from 'vitest';
import { Agent } from '../agent.ts';
import { type ChatModel } from '../chat-model.ts';
import { type RetryOptions } from '../retry-policy.ts';
import { runDeliveryConformance } from './wire-conformance-delivery.case.ts';
import { runEndsConformance } from './wire-conformance-ends.case.ts';
import {
  calculatorRegistry,
  NO_RETRY_HINT,
  setup,
} from './wire-conformance-setup.case.ts';

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
  /** Whether the provider's in-stream error frame carries an HTTP status (Gemini's does). */
  readonly inStreamStatus?: boolean;
  /**
   * The wire with reasoning on, pointed at the server, when the test server scripts this
   * provider's reasoning state: the suite then runs its tool loops with reasoning blocks (and a
   * Gemini signature) against the strict server.
   */
  readonly reasoningModel?: (serverURL: string) => ChatModel;
}

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

    runDeliveryConformance(wire);
    runEndsConformance(wire);
  });
}
