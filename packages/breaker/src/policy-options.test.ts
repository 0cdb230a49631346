// The options of the policies opossum lacks: checked with errors that name them, and defaults
// that change nothing.
import { describe, expect, it, vi } from 'vitest';
import {
  type BreakerOptions,
  breakerDefaults,
  resolveBreakerOptions,
  validateBreakerOptions,
} from './breaker-options.ts';
import { type BreakerStateStore } from './breaker-state-store.ts';
import { usesPolicies } from './circuit-policy.ts';
import { sharedRules } from './fleet-circuit.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

function bad(options: unknown): BreakerOptions {
  return options as BreakerOptions;
}

describe('the policy options', () => {
  it.each([
    [{ slowCallMs: 0 }, RangeError, /"slowCallMs" must be a number in \(0, /],
    [{ slowCallMs: '100' }, TypeError, /"slowCallMs"/],
    [
      { slowCallMs: 100, slowCallRatePct: 0 },
      RangeError,
      /"slowCallRatePct" must be a number in \(0, 100\], got 0/,
    ],
    [
      { slowCallRatePct: 50 },
      TypeError,
      /"slowCallRatePct" needs "slowCallMs"/,
    ],
    [
      { permittedCallsInHalfOpen: 0 },
      RangeError,
      /"permittedCallsInHalfOpen" must be an integer in \[1, 100000\], got 0/,
    ],
    [
      { permittedCallsInHalfOpen: 1.5 },
      RangeError,
      /"permittedCallsInHalfOpen"/,
    ],
    [
      { windowCalls: 100_001 },
      RangeError,
      /"windowCalls" must be an integer in \[1, 100000\], got 100001/,
    ],
    [{ windowCalls: null }, TypeError, /"windowCalls"/],
    [
      { windowCalls: 10, windowMs: 60_000 },
      TypeError,
      /"windowCalls" and "windowMs" describe two kinds of window/,
    ],
    [{ windowCalls: 10, buckets: 6 }, TypeError, /"windowCalls" and "buckets"/],
    [
      { windowCalls: 3, minimumCalls: 4 },
      RangeError,
      /"minimumCalls" \(4\) must be at most "windowCalls" \(3\)/,
    ],
  ])('refuses %o', (options, type, message) => {
    expect(() => {
      validateBreakerOptions(bad(options));
    }).toThrow(type);
    expect(() => {
      validateBreakerOptions(bad(options));
    }).toThrow(message);
  });

  it('takes good values, and fills minimumCalls from a small count window', () => {
    const resolved = resolveBreakerOptions({
      slowCallMs: 250,
      slowCallRatePct: 80,
      permittedCallsInHalfOpen: 3,
      windowCalls: 3,
    });
    expect(resolved).toMatchObject({
      slowCallMs: 250,
      slowCallRatePct: 80,
      permittedCallsInHalfOpen: 3,
      windowCalls: 3,
      minimumCalls: 3,
    });
    expect(resolveBreakerOptions({ windowCalls: 100 }).minimumCalls).toBe(5);
    expect(usesPolicies(resolved)).toBe(true);
  });

  it('by default asks for none of them, so a default breaker keeps opossum’s own path', () => {
    const resolved = resolveBreakerOptions({});
    expect(resolved).toMatchObject({
      windowCalls: undefined,
      slowCallMs: undefined,
      slowCallRatePct: 100,
      permittedCallsInHalfOpen: 1,
    });
    expect(breakerDefaults).toMatchObject({
      permittedCallsInHalfOpen: 1,
      slowCallRatePct: 100,
    });
    expect(usesPolicies(resolved)).toBe(false);
    expect(usesPolicies(resolveBreakerOptions({ slowCallMs: 5 }))).toBe(true);
    expect(
      usesPolicies(resolveBreakerOptions({ permittedCallsInHalfOpen: 2 })),
    ).toBe(true);
    expect(
      usesPolicies(resolveBreakerOptions({ permittedCallsInHalfOpen: 1 })),
    ).toBe(false);
  });
});

describe('the policies and a state store', () => {
  it('asks the store to check only the rules beyond the time window that are asked for', () => {
    const checkRules = vi.fn();
    const store: BreakerStateStore = {
      circuit: () => {
        throw new Error('not used');
      },
      checkRules,
    };
    validateBreakerOptions({ store });
    validateBreakerOptions({ store, permittedCallsInHalfOpen: 1 });
    expect(checkRules).not.toHaveBeenCalled();
    validateBreakerOptions({
      store,
      windowCalls: 10,
      slowCallMs: 200,
      permittedCallsInHalfOpen: 2,
    });
    expect(checkRules).toHaveBeenCalledWith({
      windowCalls: 10,
      slowCallRatePct: 100,
      permittedCallsInHalfOpen: 2,
    });
    checkRules.mockImplementation(() => {
      throw new TypeError('"windowCalls" is not supported with this store');
    });
    expect(() => {
      validateBreakerOptions({ store, windowCalls: 10 });
    }).toThrow(/not supported with this store/);
  });

  it('hands the store the policies’ rules only when they are asked for', () => {
    const plain = sharedRules(resolveBreakerOptions({}));
    expect(Object.keys(plain).sort()).toEqual([
      'buckets',
      'failureRatePct',
      'leaseMs',
      'minimumCalls',
      'resetTimeoutMs',
      'windowMs',
    ]);
    expect(
      sharedRules(
        resolveBreakerOptions({
          slowCallMs: 10,
          slowCallRatePct: 40,
          windowCalls: 20,
          permittedCallsInHalfOpen: 3,
        }),
      ),
    ).toMatchObject({
      slowCallRatePct: 40,
      windowCalls: 20,
      permittedCallsInHalfOpen: 3,
    });
  });
});
