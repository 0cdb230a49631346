// What a breaker with policies tells a shared state store: its rules, and which calls were slow.
import { ToolResponse } from '@candor/tools';
import { describe, expect, it, vi } from 'vitest';
import {
  type BreakerStateStore,
  type SharedAdmission,
  type SharedCircuit,
  type SharedCircuitRules,
} from './breaker-state-store.ts';
import { useBreakers } from './__fixtures__/breaker-calls.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

const make = useBreakers();

/** A closed shared circuit that keeps every argument it is recorded with. */
function recordingStore(): {
  store: BreakerStateStore;
  rules: SharedCircuitRules[];
  recorded: unknown[][];
} {
  const rules: SharedCircuitRules[] = [];
  const recorded: unknown[][] = [];
  const circuit: SharedCircuit = {
    view: 'closed',
    admit: (): SharedAdmission => ({ kind: 'run' }),
    record: (...args: unknown[]) => {
      recorded.push(args.slice(1));
    },
    onChange: () => () => undefined,
  };
  return {
    store: {
      circuit: (_tool, given) => {
        rules.push(given);
        return circuit;
      },
    },
    rules,
    recorded,
  };
}

describe('a breaker with policies and a shared state store', () => {
  it('says which calls were slow, and its slow rate and count window in its rules', async () => {
    const { store, rules, recorded } = recordingStore();
    const breaker = make({
      store,
      slowCallMs: 100,
      slowCallRatePct: 40,
      windowCalls: 8,
    });
    expect(rules[0]).toMatchObject({ slowCallRatePct: 40, windowCalls: 8 });
    const slow = breaker.admit();
    const quick = breaker.admit();
    await vi.advanceTimersByTimeAsync(150);
    if (!slow.admitted || !quick.admitted) throw new Error('refused');
    slow.record(ToolResponse.success('late'));
    const third = breaker.admit();
    if (!third.admitted) throw new Error('refused');
    third.record(ToolResponse.error('NETWORK_ERROR', 'down'));
    quick.record(ToolResponse.success('also late'));
    expect(recorded).toEqual([
      [false, true],
      [true, false],
      [false, true],
    ]);
  });

  it('without slowCallMs records as before: no slow flag, no policy rules', async () => {
    const { store, rules, recorded } = recordingStore();
    const breaker = make({ store });
    expect(rules[0]).not.toHaveProperty('slowCallRatePct');
    expect(rules[0]).not.toHaveProperty('windowCalls');
    const admission = breaker.admit();
    await vi.advanceTimersByTimeAsync(60_000);
    if (!admission.admitted) throw new Error('refused');
    admission.record(ToolResponse.success('ok'));
    expect(recorded).toEqual([[false]]);
  });
});
