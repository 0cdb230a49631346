import { setTimeout as sleep } from 'node:timers/promises';
import { ToolRegistry } from '@candor/registry';
import { ToolResponse } from '@candor/tools';
import { describeResponse, type Output } from './output.ts';

const RESET_MS = 300;

/** The breaker, live: a flaky tool fails, the circuit opens, half-opens and closes again. */
export async function breakerSection(output: Output): Promise<void> {
  output.section(
    `The circuit breaker (real opossum timing, reset after ${RESET_MS} ms)`,
  );
  const registry = new ToolRegistry({
    breaker: { minimumCalls: 2, resetTimeoutMs: RESET_MS },
  });
  let healthy = false;
  let invocations = 0;
  registry.register(
    function flaky_api() {
      invocations += 1;
      return healthy
        ? 'pong'
        : ToolResponse.error('API_ERROR', 'upstream answered 502');
    },
    { description: 'A remote API that is down for a while' },
  );
  const started = Date.now();
  const state = (): string => registry.health()[0]?.state ?? 'closed';
  const call = async (label: string): Promise<void> => {
    const before = invocations;
    const response = await registry.call('flaky_api', {});
    const ran = invocations > before ? 'tool ran' : 'tool NOT invoked';
    output.timeline(
      Date.now() - started,
      `${label}: ${describeResponse(response)} (${ran})`,
      state(),
    );
  };
  await call('call 1');
  await call('call 2');
  await call('call 3');
  output.note(
    `waiting ${RESET_MS} ms for the reset timeout; meanwhile the API recovers`,
  );
  healthy = true;
  await sleep(RESET_MS);
  output.timeline(Date.now() - started, 'reset timeout passed', state());
  await call('call 4 (the half-open trial)');
  await call('call 5');
  registry.shutdown();
}
