import { type ToolErrorCode } from '@candor/errors';
import { ToolResponse } from '@candor/tools';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type Admission,
  createToolBreaker,
  type StateChange,
} from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

// `pnpm test:fuzz` with CANDOR_FUZZ_RUNS and CANDOR_FUZZ_SEED runs this longer or replays a
// failure; CI runs the default count.
const runs = Number(process.env['CANDOR_FUZZ_RUNS'] ?? 10_000);
const seedText = process.env['CANDOR_FUZZ_SEED'];

const minimumCalls = 2;
const failureRatePct = 50;
const resetTimeoutMs = 1_000;

type Ending = 'success' | 'ignored' | 'failure' | 'timeout';

type Step =
  // Admitted and recorded at once, or refused.
  | { kind: 'call'; ending: Ending; code: ToolErrorCode }
  // Admitted and left running.
  | { kind: 'start' }
  // One call left running ends.
  | { kind: 'finish'; pick: number; ending: Ending; code: ToolErrorCode }
  | { kind: 'advance'; ms: number }
  | { kind: 'force' }
  | { kind: 'release'; pick: number };

// Failures outnumber the rest, so runs open, go half-open and run trials often.
const ending = fc.constantFrom<Ending>(
  'success',
  'ignored',
  'failure',
  'failure',
  'timeout',
);
const code = fc.constantFrom<ToolErrorCode>('NETWORK_ERROR', 'API_ERROR');

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('call' as const), ending, code }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'start' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('finish' as const),
      pick: fc.nat(),
      ending,
      code,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      // Around the reset timeout, and past a bucket and the whole window.
      ms: fc.constantFrom(1, 999, 1_000, 1_000, 2_500, 7_000),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'force' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      pick: fc.nat(),
    }),
  },
);

function responseFor(ending: Ending, code: ToolErrorCode): ToolResponse {
  switch (ending) {
    case 'success':
      return ToolResponse.success('ok');
    case 'ignored':
      return ToolResponse.error('NOT_FOUND', 'no such page');
    case 'failure':
      return ToolResponse.error(code, 'upstream failed');
    case 'timeout':
      return ToolResponse.error('TIMEOUT', 'deadline');
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

afterEach(() => {
  vi.useRealTimers();
});

describe('admit and record, interleaved across transitions', () => {
  it('keep the window, the events and opossum’s rule consistent, and never throw', async () => {
    process.on('unhandledRejection', onUnhandled);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(step, { maxLength: 40, size: 'max' }),
          async (steps) => {
            vi.useFakeTimers();
            const breaker = createToolBreaker('fuzzed', {
              minimumCalls,
              failureRatePct,
              resetTimeoutMs,
              windowMs: 6_000,
              buckets: 6,
            });
            const changes: StateChange[] = [];
            breaker.onStateChange((change) => changes.push(change));
            const running: Admission[] = [];
            const holds: { release(): void }[] = [];
            // opossum lets one trial through each time the circuit goes half-open; `undefined`
            // when a release shows a half-open circuit whose trial may have been taken before.
            let trialTaken: boolean | undefined = false;
            let seenChanges = 0;
            try {
              for (const each of steps) {
                const before = breaker.state;
                const forced = holds.length > 0;
                const admit = (): Admission | undefined => {
                  const admission = breaker.admit();
                  if (forced || before === 'open') {
                    expect(admission.admitted).toBe(false);
                  } else if (before === 'closed') {
                    expect(admission.admitted).toBe(true);
                  } else {
                    if (trialTaken !== undefined) {
                      expect(admission.admitted).toBe(!trialTaken);
                    }
                    trialTaken = true;
                  }
                  return admission.admitted ? admission : undefined;
                };
                const record = (
                  admission: Admission,
                  ends: Ending,
                  failedWith: ToolErrorCode,
                ): void => {
                  const failed = ends === 'failure' || ends === 'timeout';
                  const recordedIn = breaker.state;
                  admission.record(responseFor(ends, failedWith), {
                    timedOut: ends === 'timeout',
                  });
                  if (forced) {
                    expect(breaker.state).toBe('open');
                    return;
                  }
                  const { window } = breaker.snapshot();
                  const after = breaker.state;
                  if (recordedIn === 'closed') {
                    // opossum's rule, over calls that ended: at least minimumCalls, and a
                    // failure rate strictly above failureRatePct, decided on a failure only.
                    const opens =
                      failed &&
                      window.calls >= minimumCalls &&
                      (window.failures / window.calls) * 100 > failureRatePct;
                    expect(after).toBe(opens ? 'open' : 'closed');
                  } else if (recordedIn === 'open') {
                    expect(after).toBe('open');
                  } else {
                    expect(after).toBe(failed ? 'open' : 'closed');
                  }
                };
                switch (each.kind) {
                  case 'call': {
                    const admission = admit();
                    if (admission !== undefined) {
                      record(admission, each.ending, each.code);
                    }
                    break;
                  }
                  case 'start': {
                    const admission = admit();
                    if (admission !== undefined) running.push(admission);
                    break;
                  }
                  case 'finish': {
                    const admission = running.splice(
                      each.pick % Math.max(1, running.length),
                      1,
                    )[0];
                    if (admission !== undefined) {
                      record(admission, each.ending, each.code);
                    }
                    break;
                  }
                  case 'advance':
                    await vi.advanceTimersByTimeAsync(each.ms);
                    break;
                  case 'force':
                    holds.push(breaker.forceOpen());
                    break;
                  case 'release':
                    holds
                      .splice(each.pick % Math.max(1, holds.length), 1)[0]
                      ?.release();
                    break;
                }
                for (const change of changes.slice(seenChanges)) {
                  if (change.to === 'half_open') {
                    trialTaken = each.kind === 'release' ? undefined : false;
                  }
                  // Opened by failures (now, or under a hold just released): the last counted
                  // code.
                  if (change.to === 'open' && each.kind !== 'force') {
                    expect(['NETWORK_ERROR', 'API_ERROR', 'TIMEOUT']).toContain(
                      change.reason,
                    );
                  }
                }
                seenChanges = changes.length;
                // Every call that ended, and every refusal: each is exactly one of the three.
                const { window } = breaker.snapshot();
                expect(window.calls).toBe(
                  window.successes + window.failures + window.rejected,
                );
                expect(window.timeouts).toBeLessThanOrEqual(window.failures);
              }
              // One event per real transition: a chain from `closed` to the state now.
              let state = 'closed';
              for (const change of changes) {
                expect(change.from).toBe(state);
                expect(change.to).not.toBe(change.from);
                state = change.to;
              }
              expect(state).toBe(breaker.state);
              // Calls still running when the breaker shuts down end without a throw or a count.
              breaker.shutdown();
              const final = breaker.snapshot().window;
              for (const admission of running) {
                admission.record(ToolResponse.error('API_ERROR', 'late'), {
                  timedOut: true,
                });
              }
              expect(breaker.snapshot().window).toEqual(final);
            } finally {
              breaker.shutdown();
              vi.useRealTimers();
            }
          },
        ),
        {
          numRuns: Math.max(1, Math.floor(runs / 10)),
          ...(seedText === undefined ? {} : { seed: Number(seedText) }),
        },
      );
      // Let any rejection nobody handled be reported before looking.
      await new Promise<void>((resolve) => {
        setImmediate(resolve);
      });
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 120_000);
});
