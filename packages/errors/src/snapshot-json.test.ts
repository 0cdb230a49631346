import {
  countingProxy,
  everyTrapThrows,
  revokedProxy,
  throwingGetters,
  throwingProxy,
} from '@candor/hostile-fixtures';
import { describe, expect, it } from 'vitest';
import {
  SNAPSHOT_MAX_CHARS,
  SNAPSHOT_MAX_DEPTH,
  TOO_DEEP,
  TOO_LARGE,
} from './snapshot-budget.ts';
import { assembleFields, snapshotFields } from './snapshot-fields.ts';
import { snapshotJson, type SnapshotRedactor } from './snapshot-json.ts';

// The registry's tests (bounded-snapshots, snapshot-json.property) hold the copy to
// JSON.parse(JSON.stringify(value)) and to its bounds; these hold it to hostile objects.
describe('snapshotJson on a hostile value', () => {
  it('reads each field once, and the copy does not change afterwards', () => {
    let status = 0;
    const target: Record<string, unknown> = { nested: { n: 1 } };
    Object.defineProperty(target, 'status', {
      get: () => (status++ === 0 ? 'error' : 'success'),
      enumerable: true,
    });
    const { proxy, reads } = countingProxy(target);
    const snapshot = snapshotJson(proxy);
    expect(snapshot).toEqual({
      ok: true,
      value: { nested: { n: 1 }, status: 'error' },
    });
    expect(reads('nested')).toBe(1);
    expect(reads('status')).toBe(1);
    expect(status).toBe(1);
  });

  it('gives the reason, never a throw, when a getter, a trap or a revoked Proxy throws', () => {
    const values: unknown[] = [
      throwingProxy('trap down').logger,
      { inner: throwingProxy('trap down').logger },
      [everyTrapThrows('trap down').proxy],
    ];
    for (const value of values) {
      const snapshot = snapshotJson(value);
      expect(snapshot.ok).toBe(false);
      expect(!snapshot.ok && snapshot.reason).toMatch(/down/);
    }
    const revoked = snapshotJson({ revoked: revokedProxy() });
    expect(revoked.ok).toBe(false);
  });

  it('leaves non-enumerable getters unread, as JSON.stringify does', () => {
    const { logger, reads } = throwingGetters();
    expect(snapshotJson(logger)).toEqual({ ok: true, value: {} });
    expect(reads()).toBe(0);
  });

  it('censors through any redactor of the structural shape (no @candor/tools needed)', () => {
    const redactor: SnapshotRedactor = {
      isSecretKey: (key) => key === 'token',
      redact(value, found) {
        const record = value as Record<string, unknown>;
        for (const item of Object.values(record)) found?.push(String(item));
        return Object.fromEntries(
          Object.keys(record).map((key) => [key, '[REDACTED]']),
        );
      },
    };
    const found: string[] = [];
    const snapshot = snapshotJson(
      { user: 'ada', token: 's3cret' },
      { redactor, found },
    );
    expect(snapshot).toEqual({
      ok: true,
      value: { user: 'ada', token: '[REDACTED]' },
    });
    expect(found).toEqual(['s3cret']);
  });

  it('bounds the depth with the marker', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < SNAPSHOT_MAX_DEPTH + 5; level++) {
      deep = { deep };
    }
    const snapshot = snapshotJson(deep);
    expect(snapshot.ok).toBe(true);
    expect(JSON.stringify(snapshot.ok && snapshot.value)).toContain(TOO_DEEP);
  });
});

describe('the size bound counts what JSON writes', () => {
  // Each of these was counted at one character an item, so 2^24 of them wrote up to 24 times
  // the bound: a response with two such fields was past V8's longest string.
  const deep = (levels: number): unknown => {
    let value: unknown = [];
    for (let level = 0; level < levels; level++) value = [value];
    return value;
  };
  const inside = (levels: number, value: unknown): unknown => {
    let wrapped = value;
    for (let level = 0; level < levels; level++) wrapped = [wrapped];
    return wrapped;
  };
  const items = 2 ** 20;
  const cases: readonly (readonly [string, unknown])[] = [
    [
      'the longest doubles',
      new Array<number>(items).fill(-1.7976931348623157e308),
    ],
    ['holes', new Array<unknown>(items * 4)],
    ['booleans', new Array<boolean>(items * 3).fill(false)],
    ['empty strings', new Array<string>(items * 6).fill('')],
    ['empty arrays', Array.from({ length: items * 6 }, () => [])],
    [
      'containers too deep, each its marker',
      inside(SNAPSHOT_MAX_DEPTH - 2, new Array<unknown>(items).fill(deep(3))),
    ],
  ];
  it.each(cases)('%s', (_name, value) => {
    const snapshot = snapshotJson(value);
    expect(snapshot.ok).toBe(true);
    const text = JSON.stringify(snapshot.ok ? snapshot.value : undefined);
    expect(text.length).toBeLessThanOrEqual(SNAPSHOT_MAX_CHARS + 64);
    expect(text).toContain(TOO_LARGE);
  });
});

describe('snapshotFields on a hostile value', () => {
  const bounds = {
    ownBudget: (name: string) => name === 'data',
    unbudgeted: 'text',
  };

  it('reads each field once, in key order, without the keys JSON leaves out', () => {
    const { proxy, reads } = countingProxy({
      text: 'hi',
      data: [1],
      gone: undefined,
      fn: () => 1,
    });
    const snapshot = snapshotFields(proxy, bounds);
    expect(snapshot).toEqual({
      ok: true,
      keys: ['text', 'data'],
      values: ['hi', [1]],
    });
    for (const key of ['text', 'data', 'gone', 'fn']) {
      expect(reads(key)).toBe(1);
    }
    if (snapshot.ok && 'keys' in snapshot) {
      expect(assembleFields(snapshot.keys, snapshot.values)).toEqual({
        text: 'hi',
        data: [1],
      });
    }
  });

  it('gives the reason, never a throw, when a trap throws', () => {
    for (const value of [
      throwingProxy('trap down').logger,
      everyTrapThrows('trap down').proxy,
      { text: 'hi', data: throwingProxy('trap down').logger },
    ]) {
      const snapshot = snapshotFields(value, bounds);
      expect(snapshot.ok).toBe(false);
      expect(!snapshot.ok && snapshot.reason).toMatch(/trap down/);
    }
  });
});
