import { silentLogger } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import {
  type BreakerOptions,
  breakerDefaults,
  defaultFailureCodes,
  resolveBreakerOptions,
  validateBreakerOptions,
} from './breaker-options.ts';
import { createToolBreaker } from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

function bad(options: unknown): BreakerOptions {
  return options as BreakerOptions;
}

describe('validateBreakerOptions', () => {
  it.each([
    [
      'failureRatePct 0',
      { failureRatePct: 0 },
      RangeError,
      /"failureRatePct" must be a number in \(0, 100\], got 0/,
    ],
    [
      'failureRatePct 100.5',
      { failureRatePct: 100.5 },
      RangeError,
      /"failureRatePct"/,
    ],
    [
      'failureRatePct NaN',
      { failureRatePct: Number.NaN },
      RangeError,
      /"failureRatePct"/,
    ],
    [
      'failureRatePct as a string',
      { failureRatePct: '50' },
      TypeError,
      /"failureRatePct" must be a number .* got "50"/,
    ],
    [
      'minimumCalls 0',
      { minimumCalls: 0 },
      RangeError,
      /"minimumCalls" must be an integer in \[1, /,
    ],
    ['minimumCalls 2.5', { minimumCalls: 2.5 }, RangeError, /"minimumCalls"/],
    [
      'timeoutMs 0',
      { timeoutMs: 0 },
      RangeError,
      /"timeoutMs" must be a number in \(0, 2147483647\], got 0/,
    ],
    [
      'timeoutMs Infinity',
      { timeoutMs: Number.POSITIVE_INFINITY },
      RangeError,
      /"timeoutMs"/,
    ],
    [
      'graceMs -1',
      { graceMs: -1 },
      RangeError,
      /"graceMs" must be a number in \[0, /,
    ],
    ['resetTimeoutMs 0', { resetTimeoutMs: 0 }, RangeError, /"resetTimeoutMs"/],
    [
      'windowMs 1.5',
      { windowMs: 1.5 },
      RangeError,
      /"windowMs" must be an integer/,
    ],
    [
      'buckets 0',
      { buckets: 0 },
      RangeError,
      /"buckets" must be an integer in \[1, /,
    ],
    [
      'buckets not dividing windowMs',
      { windowMs: 60_000, buckets: 7 },
      RangeError,
      /"buckets" \(7\) must divide "windowMs" \(60000\)/,
    ],
    [
      'default window, 7 buckets',
      { buckets: 7 },
      RangeError,
      /must divide "windowMs" \(60000\)/,
    ],
    [
      'timeout plus grace past the timer limit',
      { timeoutMs: 2_147_483_647, graceMs: 1 },
      RangeError,
      /"timeoutMs" \+ "graceMs" must be at most 2147483647/,
    ],
    [
      'failureCodes as one string',
      { failureCodes: 'TIMEOUT' },
      TypeError,
      /"failureCodes" must be an iterable of error codes/,
    ],
    [
      'failureCodes with an unknown code',
      { failureCodes: ['TIMEOUT', 'timeout'] },
      TypeError,
      /holds "timeout", which is not an error code/,
    ],
    [
      'enabled as a string',
      { enabled: 'no' },
      TypeError,
      /"enabled" must be a boolean, got "no"/,
    ],
    [
      'a logger without child()',
      { logger: { info: () => undefined } },
      TypeError,
      /"logger" must be a pino-compatible logger; it lacks trace, debug, warn, error, child/,
    ],
    [
      'a store without circuit()',
      { store: { get: () => undefined } },
      TypeError,
      /"store" must be a breaker state store \(an object with a circuit\(\) method/,
    ],
    [
      'a misspelt option',
      { resetTimeout: 1_000 },
      TypeError,
      /Unknown breaker option "resetTimeout"/,
    ],
  ])('24. rejects %s', (_label, options, errorClass, message) => {
    expect(() => {
      validateBreakerOptions(bad(options));
    }).toThrow(errorClass);
    expect(() => {
      validateBreakerOptions(bad(options));
    }).toThrow(message);
  });

  it('24. rejects a non-object', () => {
    expect(() => {
      validateBreakerOptions(bad(null));
    }).toThrow(/Breaker options must be an object, got null/);
  });

  it('24. names the option whose getter or Proxy trap throws, with its reason', () => {
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('trap down');
        },
      },
    );
    const throwing = (name: string): object =>
      Object.defineProperty({}, name, {
        enumerable: true,
        get() {
          throw new Error('getter down');
        },
      });
    expect(() => {
      validateBreakerOptions(bad({ telemetry: { meter: trap } }));
    }).toThrow(
      new TypeError(
        'Breaker option "telemetry.meter" could not be read: trap down',
      ),
    );
    expect(() => {
      validateBreakerOptions(bad({ telemetry: throwing('meter') }));
    }).toThrow(
      'Breaker option "telemetry.meter" could not be read: getter down',
    );
    expect(() => {
      validateBreakerOptions(bad({ store: trap }));
    }).toThrow('Breaker option "store" could not be read: trap down');
    expect(() => {
      validateBreakerOptions(bad(throwing('timeoutMs')));
    }).toThrow(new TypeError('Breaker options could not be read: getter down'));
  });

  it('24. accepts the boundaries of every range', () => {
    for (const options of [
      {},
      { failureRatePct: 100, minimumCalls: 1, graceMs: 0 },
      { failureRatePct: 0.5, timeoutMs: 1, resetTimeoutMs: 1 },
      { windowMs: 1, buckets: 1 },
      { failureCodes: new Set(['NOT_FOUND'] as const), enabled: false },
      { logger: silentLogger },
      bad({ timeoutMs: undefined }),
    ]) {
      expect(() => {
        validateBreakerOptions(options);
      }).not.toThrow();
    }
  });

  it('24. createToolBreaker validates its options and needs a tool name', () => {
    expect(() => createToolBreaker('search', { failureRatePct: 0 })).toThrow(
      RangeError,
    );
    expect(() => createToolBreaker('  ')).toThrow(
      'needs a non-empty tool name, got "  "',
    );
    expect(() => createToolBreaker(undefined as unknown as string)).toThrow(
      /got undefined/,
    );
  });
});

describe('resolveBreakerOptions', () => {
  it('fills in the documented defaults', () => {
    const resolved = resolveBreakerOptions({});
    expect(resolved).toMatchObject({
      timeoutMs: 30_000,
      graceMs: 1_000,
      resetTimeoutMs: 30_000,
      windowMs: 60_000,
      buckets: 6,
      minimumCalls: 5,
      failureRatePct: 50,
      enabled: true,
    });
    expect(resolved).toMatchObject(breakerDefaults);
    expect(resolved.logger).toBe(silentLogger);
    expect([...resolved.failureCodes].sort()).toEqual([
      'API_ERROR',
      'EXECUTION_ERROR',
      'INTERNAL_ERROR',
      'NETWORK_ERROR',
      'RATE_LIMIT',
      'TIMEOUT',
    ]);
    expect(resolved.failureCodes).not.toBe(defaultFailureCodes);
    // Every default breaker shares one set instead of a copy each.
    expect(resolveBreakerOptions({}).failureCodes).toBe(resolved.failureCodes);
  });

  it('drops CIRCUIT_OPEN from a custom failureCodes list', () => {
    const resolved = resolveBreakerOptions({
      failureCodes: ['CIRCUIT_OPEN', 'CONFLICT'],
    });
    expect([...resolved.failureCodes]).toEqual(['CONFLICT']);
  });
});

describe('options read once', () => {
  /** An option whose getter answers `first` once, then `later` (or throws) on every later read. */
  function changing(key: string, first: unknown, later: () => unknown): object {
    let reads = 0;
    return Object.defineProperty({}, key, {
      enumerable: true,
      get() {
        reads += 1;
        return reads === 1 ? first : later();
      },
    });
  }

  it('uses the value it validated, not a second read of a getter', () => {
    const resolved = resolveBreakerOptions(
      bad(changing('failureRatePct', 50, () => 500)),
    );
    expect(resolved.failureRatePct).toBe(50);
  });

  it('never lets a telemetry.meter getter that throws on its second read escape raw', () => {
    let reads = 0;
    const telemetry = Object.defineProperty({}, 'meter', {
      enumerable: true,
      get() {
        reads += 1;
        if (reads > 1) throw new Error('second read');
        return undefined;
      },
    });
    expect(() => resolveBreakerOptions(bad({ telemetry }))).not.toThrow();
    expect(reads).toBe(1);
  });

  it('never lets a getter that throws on its second read escape raw', () => {
    // Each value is valid with the other defaults, so any throw is the second read's.
    const valid: Record<string, number> = {
      timeoutMs: 1000,
      windowMs: 6000,
      buckets: 10,
      graceMs: 1000,
    };
    for (const [key, value] of Object.entries(valid)) {
      const options = bad(
        changing(key, value, () => {
          throw new Error('second read');
        }),
      );
      expect(() => {
        validateBreakerOptions(options);
      }).not.toThrow();
      const again = bad(
        changing(key, value, () => {
          throw new Error('second read');
        }),
      );
      expect(() => resolveBreakerOptions(again)).not.toThrow();
    }
  });
});
