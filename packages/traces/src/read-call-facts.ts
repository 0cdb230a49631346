import { firstKeyOf } from './json-path.ts';
import { measureResult } from './measure-result.ts';
import { noEscalations, type OpenCall } from './open-call.ts';
import type { TraceRule } from './parse-trace-table.ts';
import { summariseArguments } from './summarise-arguments.ts';
import { ObservedOutcome } from '@candor/tools';

function vendorWord(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value);
}

/**
 * The facts any matching line may carry about its call: the tool, the arguments (summarised on
 * arrival) and the start and end times. Denial lines only fill gaps; start and outcome lines
 * carry the call's own facts.
 */
export function readCallFacts(
  call: OpenCall,
  rule: TraceRule,
  { item, root }: { item: unknown; root: object },
): void {
  const fill = rule.kind === 'denial';
  const tool = rule.tool === undefined ? undefined : rule.tool.read(item, root);
  if (tool !== undefined && !(fill && call.tool !== undefined))
    call.tool = tool;
  // Arguments repeat on outcome lines (codex) and are the same call's: summarise them once.
  if (
    rule.args !== undefined &&
    (rule.kind === 'start' || call.argsSummary === '')
  ) {
    const args = rule.args.read(item, root);
    if (args !== undefined) call.argsSummary = summariseArguments(args);
  }
  const startedAt =
    rule.startedAt === undefined ? undefined : rule.startedAt.read(item, root);
  if (startedAt !== undefined) call.startedAt = startedAt;
  const endedAt =
    rule.endedAt === undefined ? undefined : rule.endedAt.read(item, root);
  if (endedAt !== undefined) call.endedAt = endedAt;
}

/** Marks the call denied and keeps the best reason: one read from the trace beats a label. */
export function readDenial(
  call: OpenCall,
  rule: TraceRule,
  { item, root }: { item: unknown; root: object },
): void {
  call.denied = true;
  const { reason } = rule;
  if (reason === undefined) return;
  const value = reason.read(item, root);
  if (value === undefined) return;
  const fromTrace = reason.value === undefined;
  if (fromTrace ? !call.reasonFromTrace : call.denialReason === undefined) {
    call.denialReason = value;
    call.reasonFromTrace = fromTrace;
  }
}

/**
 * Reads an outcome line into the call: the vendor's word (and the field, when it was not text),
 * its translation, the exit code, the escalations that matched and the result length. The last
 * outcome line wins: codex can re-emit an item, opencode can re-emit a part.
 */
export function readOutcome(
  call: OpenCall,
  rule: TraceRule,
  { item, root }: { item: unknown; root: object },
): void {
  const { status } = rule;
  if (status === undefined) return;
  call.settled = true;
  let word: string | undefined;
  let field: string | null = null;
  for (const source of status.from) {
    if (source.keyOf) {
      word = firstKeyOf(source.path.read(item, root));
      if (word === undefined) continue;
      field = source.path.segments.at(-1) ?? null;
      break;
    }
    const value = source.path.read(item, root);
    if (value !== undefined && value !== null) {
      word = source.word ?? vendorWord(value);
      if (source.word === undefined && typeof value !== 'string')
        field = source.path.segments.at(-1) ?? null;
      break;
    }
  }
  call.vendorField = field;
  if (word === undefined) {
    call.vendorStatus = null;
    call.vendorOutcome = status.absent ?? ObservedOutcome.UNKNOWN;
  } else {
    call.vendorStatus = word;
    call.vendorOutcome =
      status.map.get(word) ?? status.otherwise ?? ObservedOutcome.UNKNOWN;
  }
  call.exitCode =
    rule.exitCode === undefined ? undefined : rule.exitCode.read(item, root);
  call.escalations =
    rule.escalate.length === 0
      ? noEscalations
      : rule.escalate
          .filter((escalation) => escalation.matches(item, root))
          .map((escalation) => escalation.reason);
  call.resultLength =
    rule.result === undefined
      ? null
      : measureResult(rule.result.read(item, root));
}
