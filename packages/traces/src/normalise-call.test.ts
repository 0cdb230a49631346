import { describe, expect, it } from 'vitest';
import type { CallEvidence } from './call-evidence.ts';
import { normaliseCall } from './normalise-call.ts';

const settledOk: CallEvidence = {
  harness: 'opencode',
  callId: 'call_1',
  line: 3,
  tool: 'bash',
  argsSummary: '{"command":"false"}',
  settled: true,
  vendorStatus: 'completed',
  vendorField: null,
  vendorOutcome: 'success',
  exitCode: undefined,
  escalations: [],
  denied: false,
  denialReason: undefined,
  resultLength: 5,
  startedAt: undefined,
  endedAt: undefined,
};

describe('normaliseCall', () => {
  it('keeps the vendor translation when there is no other evidence', () => {
    expect(normaliseCall(settledOk)).toEqual({
      harness: 'opencode',
      callId: 'call_1',
      tool: 'bash',
      argsSummary: '{"command":"false"}',
      outcome: 'success',
      vendorStatus: 'completed',
      vendorField: null,
      denialReason: null,
      evidence: null,
      resultLength: 5,
      exitCode: null,
      startedAt: null,
      endedAt: null,
      line: 3,
    });
  });

  it('makes a non-zero exit code an error over a vendor "completed", unless vendorOnly', () => {
    const evidence = { ...settledOk, exitCode: 1 };
    expect(normaliseCall(evidence)).toMatchObject({
      outcome: 'error',
      vendorStatus: 'completed',
      exitCode: 1,
      evidence: 'exit code 1',
    });
    expect(normaliseCall(evidence, { vendorOnly: true })).toMatchObject({
      outcome: 'success',
      exitCode: 1,
      evidence: null,
    });
  });

  it('does not explain an exit code that agrees with the vendor', () => {
    const failed = {
      ...settledOk,
      vendorStatus: 'failed',
      vendorOutcome: 'error' as const,
      exitCode: -1,
    };
    expect(normaliseCall(failed)).toMatchObject({
      outcome: 'error',
      evidence: null,
    });
  });

  it('never turns an unknown word into success because the exit code is 0', () => {
    const evidence = {
      ...settledOk,
      vendorStatus: 'paused',
      vendorOutcome: 'unknown' as const,
      exitCode: 0,
    };
    expect(normaliseCall(evidence)).toMatchObject({
      outcome: 'unknown',
      vendorStatus: 'paused',
    });
    expect(normaliseCall(evidence, { vendorOnly: true }).outcome).toBe(
      'unknown',
    );
  });

  it('makes a null exit code (killed, timed out) unknown rather than success', () => {
    expect(normaliseCall({ ...settledOk, exitCode: null })).toMatchObject({
      outcome: 'unknown',
      evidence: 'no exit code',
    });
    expect(
      normaliseCall({ ...settledOk, exitCode: null }, { vendorOnly: true })
        .outcome,
    ).toBe('success');
  });

  it('applies table escalations', () => {
    const evidence = { ...settledOk, escalations: ['invalid tool call'] };
    expect(normaliseCall(evidence)).toMatchObject({
      outcome: 'error',
      evidence: 'invalid tool call',
    });
  });

  it('reports a call with no outcome line as unknown whatever the table would say', () => {
    const open = {
      ...settledOk,
      settled: false,
      vendorStatus: null,
      vendorOutcome: 'success' as const,
      exitCode: 2,
    };
    expect(normaliseCall(open)).toMatchObject({
      outcome: 'unknown',
      vendorStatus: null,
      evidence: null,
    });
  });

  it('normalises epoch-millisecond and ISO times and drops garbage', () => {
    const record = normaliseCall({
      ...settledOk,
      startedAt: 1767036061123,
      endedAt: '2026-08-20T10:00:02Z',
    });
    expect(record.startedAt).toBe('2025-12-29T19:21:01.123Z');
    expect(record.endedAt).toBe('2026-08-20T10:00:02.000Z');
    expect(
      normaliseCall({ ...settledOk, startedAt: 'soon', endedAt: {} }),
    ).toMatchObject({
      startedAt: null,
      endedAt: null,
    });
  });

  it('returns a frozen record with the denial kept', () => {
    const record = normaliseCall({
      ...settledOk,
      vendorOutcome: 'error',
      denied: true,
      denialReason: 'permission-rule',
      tool: 42,
    });
    expect(Object.isFrozen(record)).toBe(true);
    expect(record).toMatchObject({
      outcome: 'denied',
      denialReason: 'permission-rule',
      tool: '',
    });
  });

  it('makes a denial mark win over any other word or evidence, even in vendor-only mode', () => {
    for (const vendorOnly of [false, true]) {
      for (const evidence of [
        { ...settledOk, exitCode: 1 },
        { ...settledOk, settled: false, vendorStatus: null },
        { ...settledOk, vendorOutcome: 'unknown' as const },
      ]) {
        expect(
          normaliseCall({ ...evidence, denied: true }, { vendorOnly }),
        ).toMatchObject({ outcome: 'denied', evidence: null });
      }
    }
  });
});

describe('normaliseCall times', () => {
  it('formats epoch milliseconds exactly as Date does, across leap years and centuries', () => {
    const samples = [
      0, 1, 951_782_400_000, 951_868_799_999, 1_709_164_800_123,
      4_107_542_400_000, 1767036061123, 253_402_300_799_999,
      253_402_300_800_000, -1, 8.64e15,
    ];
    for (let day = 0; day < 3000; day += 1)
      samples.push(day * 86_400_000 * 7 + day * 3_723_456);
    for (const ms of samples) {
      expect(
        normaliseCall({ ...settledOk, startedAt: ms }).startedAt,
        String(ms),
      ).toBe(new Date(ms).toISOString());
    }
    expect(
      normaliseCall({ ...settledOk, startedAt: 8.64e15 + 1 }).startedAt,
    ).toBeNull();
  });
});
