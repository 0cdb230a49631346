import type { CallEvidence } from './call-evidence.ts';
import { ObservedOutcome } from '@candor/tools';

/** A call the normaliser is still gathering: its evidence, writable, plus its bookkeeping. */
export type OpenCall = {
  -readonly [K in keyof CallEvidence]: CallEvidence[K];
} & {
  // A denial reason read from the trace (such as `user-rejected`) beats a table's literal label.
  reasonFromTrace: boolean;
  emitted: boolean;
  // Waiting in the normaliser's settled list for a flush.
  held: boolean;
};

export const noEscalations: readonly string[] = Object.freeze([]);

/** A call first seen on `line`, with nothing known about it yet. */
export function openCall(
  harness: string,
  callId: string,
  line: number,
): OpenCall {
  return {
    harness,
    callId,
    line,
    tool: undefined,
    argsSummary: '',
    settled: false,
    vendorStatus: null,
    vendorField: null,
    vendorOutcome: ObservedOutcome.UNKNOWN,
    exitCode: undefined,
    escalations: noEscalations,
    denied: false,
    denialReason: undefined,
    resultLength: null,
    startedAt: undefined,
    endedAt: undefined,
    reasonFromTrace: false,
    emitted: false,
    held: false,
  };
}
