import { codeMetadata, type ToolErrorCode } from '@candor/errors';
import { ToolRegistry, type ToolEndEvent } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

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
