// The adapters' shared conformance suite: one scenario list, which each framework adapter
// (@candor/ai-sdk, @candor/langchain, @candor/openai-agents) runs with its own driver.
import { codeMetadata, type ToolErrorCode } from '@candor/errors';
import { ToolRegistry, type ToolEndEvent } from '@candor/registry';
import {
  defineTool,
  type NeedsApproval,
  outcomeOf,
  ToolResponse,
  toolResultForModel,
} from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runApprovalScenarios } from './approval-conformance.ts';

// One code per error category; ACCESS_DENIED and CIRCUIT_OPEN come through their own paths.
const errorCodes: ToolErrorCode[] = [];
for (const meta of Object.values(codeMetadata)) {
  if (meta.code === 'ACCESS_DENIED' || meta.code === 'CIRCUIT_OPEN') continue;
  if (
    !errorCodes.some((code) => codeMetadata[code].category === meta.category)
  ) {
    errorCodes.push(meta.code);
  }
}

/**
 * A framework's call context (LangChain's run config, the OpenAI Agents runner's details) whose
 * `toolCall` and `signal` getters throw: the adapter's function must still answer.
 */
export const throwingToolCallAndSignal = {
  get toolCall(): never {
    throw new Error('hostile toolCall');
  },
  get signal(): never {
    throw new Error('hostile signal');
  },
};

/** Every outcome the model must be told apart, as the `probe` tool's argument. */
export const outcomes = [
  'success',
  'data',
  'partial',
  ...errorCodes,
  'denied',
] as const;

/** The tool calls of the first model turn: one per outcome, then the open circuit. */
export const scenarioCalls = [
  ...outcomes.map((outcome, index) => ({
    id: `call_${index}`,
    name: 'probe',
    input: { outcome },
  })),
  { id: 'call_open', name: 'flaky', input: {} },
];

/** A registry whose `probe` answers with the outcome it is asked for and whose `flaky` is open. */
export async function scenarioRegistry(): Promise<{
  registry: ToolRegistry;
  ends: ToolEndEvent[];
}> {
  const registry = new ToolRegistry({
    breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 60_000 },
    approve: ({ params }) =>
      (params as { outcome?: string }).outcome !== 'denied',
  });
  registry.register(
    defineTool({
      name: 'probe',
      description: 'Answers with the outcome it is asked for',
      input: z.object({ outcome: z.string() }),
      run: ({ outcome }) => {
        if (outcome === 'success') return ToolResponse.success('42');
        if (outcome === 'data')
          return ToolResponse.success('', { data: { answer: 42 } });
        if (outcome === 'partial')
          return ToolResponse.partial('rows 1-10', { reason: 'truncated' });
        return ToolResponse.error(
          outcome as ToolErrorCode,
          `probe failed with ${outcome}`,
        );
      },
    }),
    // Many failures on purpose: this breaker must stay closed and count them.
    { breaker: { minimumCalls: 1000 } },
  );
  registry.register(
    defineTool({
      name: 'flaky',
      description: 'Always fails upstream',
      input: z.object({}),
      run: () => ToolResponse.error('API_ERROR', 'upstream 502'),
    }),
  );
  await registry.call('flaky', {});
  await registry.call('flaky', {});
  const ends: ToolEndEvent[] = [];
  registry.on('tool:end', (event) => ends.push(event));
  return { registry, ends };
}

/** The first model turn of the open-circuit scenario: two failures open `flaky`'s circuit. */
export const circuitCalls = [
  { id: 'f1', name: 'flaky', input: {} },
  { id: 'f2', name: 'flaky', input: {} },
];

/** A registry with a healthy `ok` and a closed `flaky` that opens after two failures. */
export function circuitRegistry(): ToolRegistry {
  const registry = new ToolRegistry({
    breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 60_000 },
  });
  registry.register(
    defineTool({
      name: 'ok',
      description: 'Always answers',
      input: z.object({}),
      run: () => ToolResponse.success('fine'),
    }),
  );
  registry.register(
    defineTool({
      name: 'flaky',
      description: 'Always fails upstream',
      input: z.object({}),
      run: () => ToolResponse.error('API_ERROR', 'upstream 502'),
    }),
  );
  return registry;
}

/** The breaker's view after the scenario: every probe call past approval, the open rejection. */
export function breakerWindows(
  registry: ToolRegistry,
): Record<string, unknown> {
  return Object.fromEntries(
    registry.health().map((snapshot) => [
      snapshot.name,
      {
        state: snapshot.state,
        calls: snapshot.window.calls,
        rejected: snapshot.window.rejected,
      },
    ]),
  );
}

/** What the framework put before the model for one call. */
export interface ModelSaw {
  /** The model-visible text (a JSON value as its JSON text). */
  readonly text: string;
  /** The framework's error channel for the call; `undefined` where it has none. */
  readonly error?: boolean;
}

/** One framework adapter, as the suite drives it. */
export interface AdapterUnderTest {
  /** The suite's title, e.g. `toAISDKTools inside generateText`. */
  readonly name: string;
  /**
   * A two-step run with the framework's own fake model: it calls every tool of `scenarioCalls`,
   * then answers "done". Resolves to what the second model request carried, per call id, in
   * the order it carried them; it rejects if the framework crashed or did not finish.
   */
  twoStepRun(registry: ToolRegistry): Promise<(readonly [string, ModelSaw])[]>;
  /** Whether the framework keeps the calls' order in the next request. */
  readonly keepsOrder: boolean;
  /**
   * The framework refuses arguments that break the tool's JSON Schema itself (LangChain), so
   * they never reach the registry; elsewhere the registry answers them INVALID_PARAM.
   */
  readonly validatesArguments?: boolean;
  /** One call of tool `name` with `{}`, the id and the signal passed as the framework passes them. */
  callOne(
    registry: ToolRegistry,
    name: string,
    context: { readonly callId: string; readonly signal: AbortSignal },
  ): Promise<ModelSaw>;
  /**
   * A two-step run with the framework's fake model, the adapter hiding open circuits as its
   * README says: the model calls `circuitCalls` (opening `flaky`'s circuit), then answers "done".
   * Resolves to the tool names of each model request, sorted. Absent for a framework run that
   * sends no model request (a bare LangGraph `ToolNode`).
   */
  readonly toolsPerRequest?: (registry: ToolRegistry) => Promise<string[][]>;
  /**
   * A run whose model makes `calls` at once (default: `probe` once with `{ outcome: 'success' }`),
   * with `needsApproval` given to the adapter; the program rejects (or never grants) every
   * approval. Absent for a framework without approvals.
   */
  readonly rejectApproval?: (
    registry: ToolRegistry,
    needsApproval: NeedsApproval,
    calls?: readonly { id: string; name: string; input: unknown }[],
  ) => Promise<void>;
}

/** A tool that answers once the call's signal aborts, and aborts it itself. */
function waitTool(controller: AbortController) {
  return defineTool({
    name: 'wait',
    description: 'Waits until it is aborted',
    input: z.object({}),
    run: (_input, { signal }) =>
      new Promise<ToolResponse>((resolve) => {
        signal.addEventListener(
          'abort',
          () => {
            resolve(ToolResponse.success('stopped'));
          },
          { once: true },
        );
        controller.abort();
      }),
  });
}

/** The distinct values, in first-seen order, compared as JSON. */
export function unique(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The scenarios every adapter must pass, as `describe`/`it` blocks. */
export function runAdapterConformance(adapter: AdapterUnderTest): void {
  describe(`${adapter.name}: adapter conformance`, () => {
    let registry: ToolRegistry | undefined;
    afterEach(() => {
      registry?.shutdown();
      registry = undefined;
    });

    it('tells the model every outcome in the next request, through the breaker, without crashing', async () => {
      const scenario = await scenarioRegistry();
      registry = scenario.registry;
      const sent = await adapter.twoStepRun(registry);
      const ids = sent.map(([id]) => id);
      const expected = scenarioCalls.map((call) => call.id);
      expect(adapter.keepsOrder ? ids : ids.sort()).toEqual(
        adapter.keepsOrder ? expected : expected.sort(),
      );
      expect(scenario.ends).toHaveLength(scenarioCalls.length);
      const byId = new Map(sent);
      for (const end of scenario.ends) {
        const saw = byId.get(end.callId);
        const { content, isError } = toolResultForModel(
          end.response,
          end.toolName,
        );
        expect(saw?.text, end.callId).toBe(content);
        if (saw?.error !== undefined)
          expect(saw.error, end.callId).toBe(isError);
        if (outcomeOf(end.response) === 'error') {
          const code =
            end.response.status === 'error' ? end.response.errorInfo.code : '';
          expect(saw?.text.startsWith(`[${code}]`), end.callId).toBe(true);
        }
      }
      const at = (outcome: (typeof outcomes)[number]) =>
        byId.get(`call_${outcomes.indexOf(outcome)}`);
      // A refusal is not the tool failing: no framework marks it as an error; the words say it.
      expect(at('denied')?.text).toMatch(
        /^\[DENIED\] This call was NOT executed/,
      );
      expect(at('denied')?.error).not.toBe(true);
      expect(at('partial')?.text).toMatch(/^\[INCOMPLETE RESULT: truncated\]/);
      expect(byId.get('call_open')?.text).toMatch(/^\[CIRCUIT_OPEN\]/);
      expect(byId.get('call_open')?.error).not.toBe(false);
      // Every probe call past the approval gate reached the breaker; the open one was refused.
      expect(breakerWindows(registry)).toEqual({
        probe: { state: 'closed', calls: outcomes.length - 1, rejected: 0 },
        flaky: { state: 'open', calls: 3, rejected: 1 },
      });
    });

    it("passes the framework's call id and abort signal into the call", async () => {
      registry = new ToolRegistry();
      const ends: ToolEndEvent[] = [];
      registry.on('tool:end', (event) => ends.push(event));
      const controller = new AbortController();
      registry.register(waitTool(controller));
      const saw = await adapter.callOne(registry, 'wait', {
        callId: 'c9',
        signal: controller.signal,
      });
      expect(ends.map((end) => end.callId)).toEqual(['c9']);
      expect(ends[0]?.response).toMatchObject({
        status: 'error',
        errorInfo: { code: 'EXECUTION_ERROR', cancelled: true },
      });
      expect(saw.text).toMatch(/^\[EXECUTION_ERROR\]/);
      expect(saw.error).not.toBe(false);
    });

    const { toolsPerRequest } = adapter;
    if (toolsPerRequest !== undefined) {
      it('leaves a tool whose circuit opened out of the next request, as the Agent does', async () => {
        registry = circuitRegistry();
        expect(await toolsPerRequest(registry)).toEqual([
          ['flaky', 'ok'],
          ['ok'],
        ]);
        expect(
          registry.health().find((snapshot) => snapshot.name === 'flaky')
            ?.state,
        ).toBe('open');
      });
    }

    const { rejectApproval } = adapter;
    if (rejectApproval !== undefined) {
      it("asks the framework's approval with the tool and its input; a call not approved never reaches the registry", async () => {
        const scenario = await scenarioRegistry();
        registry = scenario.registry;
        const asked: unknown[] = [];
        await rejectApproval(registry, (name, input) => {
          asked.push([name, input]);
          return true;
        });
        // LangGraph runs a tool again from its start on resume, so LangChain asks twice.
        expect(unique(asked)).toEqual([['probe', { outcome: 'success' }]]);
        // It may reach the registry as the denial it is (LangChain's resume), never as a run.
        expect(
          scenario.ends.filter((end) => outcomeOf(end.response) !== 'denied'),
        ).toEqual([]);
      });

      runApprovalScenarios(adapter, rejectApproval, (made) => {
        registry = made;
      });
    }
  });
}
