import { assembleFields, snapshotFields, snapshotJson } from '@candor/errors';
import { SecretRedactor, ToolResponse } from '@candor/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  normaliseStructured,
  responseFields,
  wellFormed,
} from './normalise-response.ts';

// `pnpm test:fuzz` with CANDOR_FUZZ_RUNS and CANDOR_FUZZ_SEED runs these longer or replays a
// failure; CI runs the default count.
const runs = Number(process.env['CANDOR_FUZZ_RUNS'] ?? 1_000);
const seedText = process.env['CANDOR_FUZZ_SEED'];
const settings = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns,
  ...(seedText === undefined ? {} : { seed: Number(seedText) }),
});

class Point {
  readonly x: number;
  readonly y: number;
  constructor(x: number, y: number) {
    this.x = x;
    this.y = y;
  }
}

// Leaves JSON.stringify treats specially, beside fast-check's own.
const oddLeaves = fc.oneof(
  fc.constantFrom(
    -0,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    undefined,
    Symbol('s'),
    () => 1,
    new Point(1, 2),
    // eslint-disable-next-line no-sparse-arrays -- a hole, which JSON writes as null
    [, 1],
    Object.create(null) as object,
  ),
  fc.func(fc.jsonValue()),
  fc.jsonValue().map((value) => ({ toJSON: () => value })),
  fc.string().map((text) => ({ toJSON: (key: string) => `${key}:${text}` })),
);

const keys = fc.oneof(
  fc.string(),
  fc.constantFrom('__proto__', 'toJSON', 'constructor', '0', '10', '-1'),
);

const anyValue = fc.oneof(
  fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
    key: keys,
    maxDepth: 3,
  }),
  fc.anything({
    key: keys,
    values: [fc.jsonValue(), oddLeaves],
    maxDepth: 3,
  }),
);

/** What the JSON round trip gives, or that it throws. */
function roundTrip(
  value: unknown,
): { ok: true; value: unknown } | { ok: false } {
  try {
    const text: unknown = JSON.stringify(value);
    return {
      ok: true,
      value:
        typeof text === 'string' ? (JSON.parse(text) as unknown) : undefined,
    };
  } catch {
    return { ok: false };
  }
}

/**
 * Plain JSON values alike to the bit: same keys in the same order, plain prototypes, and
 * `Object.is` for leaves (so -0 is not 0). Vitest's own equality reads `constructor`, which is
 * an ordinary key in data.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (
    typeof a !== 'object' ||
    a === null ||
    typeof b !== 'object' ||
    b === null
  ) {
    return Object.is(a, b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item: unknown, index) => sameJson(item, b[index]))
    );
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    Object.getPrototypeOf(left) === Object.prototype &&
    Object.getPrototypeOf(right) === Object.prototype &&
    JSON.stringify(keys) === JSON.stringify(Object.keys(right)) &&
    keys.every((key) => sameJson(left[key], right[key]))
  );
}

describe('snapshotJson: the JSON round trip without the text', () => {
  it('gives what JSON.parse(JSON.stringify(value)) gives, key order included, or fails where it throws', () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        const expected = roundTrip(value);
        const snapshot = snapshotJson(value);
        expect(snapshot.ok).toBe(expected.ok);
        if (!snapshot.ok || !expected.ok) return;
        expect(sameJson(snapshot.value, expected.value)).toBe(true);
        expect(JSON.stringify(snapshot.value)).toBe(JSON.stringify(value));
      }),
      settings(runs),
    );
  });

  it('with a redactor, censors as redact() does and finds what secretValues() finds, in the one walk', () => {
    const redactor = new SecretRedactor();
    const secretKeys = fc.oneof(
      fc.string(),
      fc.constantFrom('password', 'apiKey', 'x-api-key', 'auth', 'maxTokens'),
    );
    fc.assert(
      fc.property(
        fc.anything({ key: secretKeys, maxDepth: 3, values: [fc.jsonValue()] }),
        (value) => {
          const expected = roundTrip(value);
          if (!expected.ok) return;
          const found: string[] = [];
          const snapshot = snapshotJson(value, { redactor, found });
          expect(snapshot.ok).toBe(true);
          if (!snapshot.ok) return;
          expect(
            sameJson(snapshot.value, redactor.redact(expected.value)),
          ).toBe(true);
          expect(found.sort()).toEqual(
            redactor.secretValues(expected.value).sort(),
          );
        },
      ),
      settings(runs),
    );
  });

  it('cuts cycles and BigInt with a reason, and makes __proto__ an own key, never the prototype', () => {
    const loop: Record<string, unknown> = { a: [1] };
    (loop['a'] as unknown[]).push({ back: loop });
    const cycle = snapshotJson(loop);
    expect(!cycle.ok && cycle.reason).toMatch(/circular/i);
    const bigint = snapshotJson({ n: [1n] });
    expect(!bigint.ok && bigint.reason).toMatch(/BigInt/);

    const polluting = JSON.parse('{"__proto__":{"polluted":true}}') as object;
    const copy = snapshotJson(polluting);
    expect(copy.ok).toBe(true);
    if (!copy.ok) return;
    const value = copy.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reads each getter once and keeps nothing live', () => {
    let reads = 0;
    const value = {
      get text() {
        reads += 1;
        return `read ${reads}`;
      },
      nested: { list: [1, 2] },
    };
    const snapshot = snapshotJson(value);
    value.nested.list.push(3);
    expect(reads).toBe(1);
    expect(snapshot).toEqual({
      ok: true,
      value: { text: 'read 1', nested: { list: [1, 2] } },
    });
  });
});

const codes = fc.constantFrom(
  'NOT_FOUND',
  'ACCESS_DENIED',
  'TIMEOUT',
  'INTERNAL_ERROR',
  'not_a_code',
);
/** Mostly a valid field, sometimes a wrong one, so both sides of the check are exercised. */
const mostly = <T, U>(
  valid: fc.Arbitrary<T>,
  wrong: fc.Arbitrary<U>,
): fc.Arbitrary<T | U> =>
  fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: wrong, weight: 1 });
const loose = fc.oneof(fc.jsonValue(), fc.constant(undefined));

const errorInfo = mostly(
  fc.record(
    {
      code: codes,
      message: mostly(fc.string(), fc.integer()),
      retryable: mostly(fc.boolean(), fc.string()),
      retryAfterMs: mostly(fc.nat(), fc.double()),
      details: mostly(fc.dictionary(fc.string(), loose), fc.jsonValue()),
      cancelled: mostly(fc.boolean(), fc.integer()),
      denied: fc.boolean(),
      extra: fc.string(),
    },
    { requiredKeys: ['code', 'message', 'retryable'] },
  ),
  fc.jsonValue(),
);

// Each status with its own field mostly, the others' fields and unknown keys sometimes.
const nearResponse = fc
  .tuple(
    fc.record(
      {
        text: mostly(fc.string(), fc.integer()),
        data: loose,
        stats: mostly(
          fc.record(
            {
              timeMs: mostly(fc.double({ min: 0, noNaN: true }), fc.double()),
              tokens: mostly(fc.integer(), fc.string()),
            },
            { requiredKeys: ['timeMs'] },
          ),
          fc.jsonValue(),
        ),
        context: mostly(
          fc.record(
            {
              toolName: mostly(fc.string(), fc.integer()),
              callId: mostly(fc.string(), fc.boolean()),
              params: loose,
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: ['text', 'stats'] },
    ),
    fc.oneof(
      fc.record(
        { status: fc.constant('success'), reason: fc.string() },
        { requiredKeys: ['status'] },
      ),
      fc.record(
        {
          status: fc.constant('partial'),
          reason: mostly(fc.string(), fc.integer()),
        },
        { requiredKeys: ['status'] },
      ),
      fc.record(
        { status: fc.constant('error'), errorInfo },
        { requiredKeys: ['status'] },
      ),
      fc.record({ status: fc.string(), errorInfo }, { requiredKeys: [] }),
    ),
    fc.option(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 }), {
      freq: 6,
      nil: {},
    }),
  )
  .map(([shared, own, extra]) => ({ ...extra, ...shared, ...own }));

describe('wellFormed: the fast check of a response copy agrees with the wire schema', () => {
  it('accepts only what the schema accepts, and as the schema reads it', () => {
    let accepted = 0;
    fc.assert(
      fc.property(nearResponse, (candidate) => {
        // wellFormed only ever sees JSON copies.
        const copy = roundTrip(candidate);
        if (!copy.ok) return;
        const fast = wellFormed(copy.value);
        if (fast === undefined) return;
        accepted += 1;
        const parsed = ToolResponse.safeParse(copy.value);
        expect(parsed.success).toBe(true);
        if (parsed.success) expect(fast).toStrictEqual(parsed.response);
      }),
      settings(runs),
    );
    // The generator is biased to valid fields, so the accepting side is exercised too.
    expect(accepted).toBeGreaterThan(runs / 100);
  });

  it('takes the factories’ responses without the schema', () => {
    const made = [
      ToolResponse.success('ok'),
      ToolResponse.success('ok', { data: { rows: [1] }, stats: { items: 2 } }),
      ToolResponse.partial('half', { reason: 'truncated', data: null }),
      ToolResponse.error('TIMEOUT', 'slow', { retryAfterMs: 5 }),
      ToolResponse.denied('no', { details: { by: 'policy' } }),
      ToolResponse.error('EXECUTION_ERROR', 'stop', { cancelled: true }),
    ];
    for (const response of made) {
      const copy = roundTrip(response);
      expect(copy.ok && wellFormed(copy.value)).toStrictEqual(response);
    }
  });
});

describe('snapshotFields and normaliseStructured: the fixed-shape reader agrees with the general one', () => {
  it('reads the same copy as snapshotJson, field by field', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, nearResponse), (value) => {
        if (typeof value !== 'object' || value === null) return;
        const expected = snapshotJson(value);
        const fields = snapshotFields(value, responseFields);
        expect(fields.ok).toBe(expected.ok);
        if (!fields.ok || !expected.ok) return;
        const copy =
          'keys' in fields
            ? assembleFields(fields.keys, fields.values)
            : fields.value;
        expect(sameJson(copy, expected.value)).toBe(true);
      }),
      settings(runs),
    );
  });

  it('gives the response the schema gives for the same copy, or the same failure', () => {
    let fast = 0;
    fc.assert(
      fc.property(nearResponse, (candidate) => {
        const copy = snapshotJson(candidate);
        const response = normaliseStructured('t', candidate);
        if (!copy.ok) {
          expect(response.status).toBe('error');
          return;
        }
        const parsed = ToolResponse.safeParse(copy.value);
        if (!parsed.success) {
          expect(response.status === 'error' && response.errorInfo.code).toBe(
            'INTERNAL_ERROR',
          );
          return;
        }
        if (wellFormed(copy.value) !== undefined) fast += 1;
        expect(response).toStrictEqual(parsed.response);
      }),
      settings(runs),
    );
    expect(fast).toBeGreaterThan(runs / 100);
  });
});
