// The policies (count window, slow calls, several half-open trials) against a plain model of
// resilience4j's rules, over random interleavings of calls, overlapping calls and time.
import { ToolResponse } from '@candor/tools';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BreakerState } from './breaker-state.ts';
import { type Admission, createToolBreaker } from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

const runs = Number(process.env['CANDOR_FUZZ_RUNS'] ?? 10_000);
const seedText = process.env['CANDOR_FUZZ_SEED'];

const rules = {
  windowCalls: 4,
  minimumCalls: 3,
  failureRatePct: 50,
  slowCallMs: 100,
  slowCallRatePct: 50,
  permittedCallsInHalfOpen: 4,
  resetTimeoutMs: 1_000,
};

type Ending = 'success' | 'ignored' | 'failure' | 'timeout';

type Step =
  | { kind: 'call'; ending: Ending; ms: number }
  | { kind: 'start' }
  | { kind: 'finish'; pick: number; ending: Ending }
  | { kind: 'advance'; ms: number };

const ending = fc.constantFrom<Ending>(
  'success',
  'ignored',
  'failure',
  'timeout',
);
// Around slowCallMs: quick, at it (not slow), just over it.
const duration = fc.constantFrom(0, 50, 100, 101, 500);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      ending,
      ms: duration,
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'start' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('finish' as const),
      pick: fc.nat(),
      ending,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(1, 101, 999, 1_000, 2_500),
    }),
  },
);

function responseFor(end: Ending): ToolResponse {
  switch (end) {
    case 'success':
      return ToolResponse.success('ok');
    case 'ignored':
      return ToolResponse.error('NOT_FOUND', 'no such page');
    case 'failure':
      return ToolResponse.error('NETWORK_ERROR', 'upstream failed');
    case 'timeout':
      return ToolResponse.error('TIMEOUT', 'deadline');
  }
}

/** A call the model admitted: closed (`closed`) or a trial of one half-open round. */
type Ticket = 'closed' | number;

/** resilience4j's rules as plainly as they can be written. */
class Model {
  state: BreakerState = 'closed';
  openedAt = 0;
  window: { failed: boolean; slow: boolean }[] = [];
  round = 0;
  admitted = 0;
  ended = 0;
  failed = 0;
  slow = 0;

  tick(now: number): void {
    if (this.state === 'open' && now >= this.openedAt + rules.resetTimeoutMs) {
      this.state = 'half_open';
      this.round += 1;
      this.admitted = 0;
      this.ended = 0;
      this.failed = 0;
      this.slow = 0;
    }
  }

  admit(): Ticket | undefined {
    if (this.state === 'closed') return 'closed';
    if (
      this.state === 'half_open' &&
      this.admitted < rules.permittedCallsInHalfOpen
    ) {
      this.admitted += 1;
      return this.round;
    }
    return undefined;
  }

  record(ticket: Ticket, failed: boolean, slow: boolean, now: number): void {
    if (ticket === 'closed') {
      if (this.state !== 'closed') return;
      this.window.push({ failed, slow });
      if (this.window.length > rules.windowCalls) this.window.shift();
      const calls = this.window.length;
      const failures = this.window.filter((call) => call.failed).length;
      const slowCalls = this.window.filter((call) => call.slow).length;
      if (
        calls >= rules.minimumCalls &&
        (failures / calls > rules.failureRatePct / 100 ||
          slowCalls / calls >= rules.slowCallRatePct / 100)
      ) {
        this.open(now);
      }
      return;
    }
    if (ticket !== this.round || this.state !== 'half_open') return;
    this.ended += 1;
    if (failed) this.failed += 1;
    if (slow) this.slow += 1;
    const n = rules.permittedCallsInHalfOpen;
    if (
      this.failed / n >= rules.failureRatePct / 100 ||
      this.slow / n >= rules.slowCallRatePct / 100
    ) {
      this.open(now);
    } else if (this.ended === n) {
      this.state = 'closed';
      this.window = [];
    }
  }

  open(now: number): void {
    this.state = 'open';
    this.openedAt = now;
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the policies, against a model of resilience4j’s rules', () => {
  it('admit, refuse, open and close exactly when the model does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 40, size: 'max' }),
        async (steps) => {
          vi.useFakeTimers();
          const breaker = createToolBreaker('modelled', {
            ...rules,
            telemetry: false,
          });
          const model = new Model();
          const running: {
            admission: Admission;
            ticket: Ticket;
            startedAt: number;
          }[] = [];
          const advance = async (ms: number): Promise<void> => {
            await vi.advanceTimersByTimeAsync(ms);
            model.tick(Date.now());
          };
          const admit = (): (typeof running)[number] | undefined => {
            const admission = breaker.admit();
            const ticket = model.admit();
            expect(admission.admitted).toBe(ticket !== undefined);
            if (!admission.admitted || ticket === undefined) return undefined;
            return { admission, ticket, startedAt: Date.now() };
          };
          const finish = (
            call: (typeof running)[number],
            end: Ending,
          ): void => {
            call.admission.record(responseFor(end), {
              timedOut: end === 'timeout',
            });
            const slow = Date.now() - call.startedAt > rules.slowCallMs;
            const failed = end === 'failure' || end === 'timeout';
            model.record(call.ticket, failed, slow, Date.now());
          };
          try {
            for (const each of steps) {
              switch (each.kind) {
                case 'call': {
                  const call = admit();
                  if (call !== undefined) {
                    await advance(each.ms);
                    finish(call, each.ending);
                  }
                  break;
                }
                case 'start': {
                  const call = admit();
                  if (call !== undefined) running.push(call);
                  break;
                }
                case 'finish': {
                  const [call] = running.splice(
                    each.pick % Math.max(1, running.length),
                    1,
                  );
                  if (call !== undefined) finish(call, each.ending);
                  break;
                }
                case 'advance':
                  await advance(each.ms);
                  break;
              }
              expect(breaker.state).toBe(model.state);
              const { window } = breaker.snapshot();
              expect(window.calls).toBe(
                window.successes + window.failures + window.rejected,
              );
            }
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
  }, 120_000);
});
