import { builtinTraceTables } from './builtin-trace-tables.ts';
import type { CallRecord } from './call-record.ts';
import { normaliseCall, type NormaliseOptions } from './normalise-call.ts';
import { openCall, type OpenCall } from './open-call.ts';
import { parseTraceLine } from './parse-trace-line.ts';
import type { TraceRule, TraceTable } from './parse-trace-table.ts';
import { readCallFacts, readDenial, readOutcome } from './read-call-facts.ts';
import { candidateRules } from './rule-index.ts';
import type { TraceNormaliserOptions } from './trace-normaliser-options.ts';
import {
  malformedSampleLimit,
  type MalformedLine,
  type TraceSummary,
} from './trace-summary.ts';
import { guardLogger, type Logger } from '@candor/tools';

const detectionBufferLimit = 1000;
const filterPatience = 32;
const filterRest = 512;
const noRecords: readonly CallRecord[] = Object.freeze([]);
/**
 * Turns trace lines into call records, one line at a time, with memory bounded by the window.
 * It is synchronous and push-based so a stream reader, a benchmark or a test can drive it.
 *
 * @example
 * ```ts
 * const normaliser = new TraceNormaliser({ harness: 'codex' });
 * const records = [...lines.flatMap((line) => normaliser.pushLine(line)), ...normaliser.end()];
 * ```
 */
export class TraceNormaliser {
  readonly #tables: readonly TraceTable[];
  readonly #options: NormaliseOptions;
  readonly #logger: Logger;
  readonly #window: number;
  // Open calls but the newest, by id. The newest stays out until another call opens: in most
  // traces a call settles before the next opens, and the map is never touched. (A map that grows
  // and shrinks by one entry per call rehashes each time, and once it is in the old generation
  // each new table is allocated there: 3 MB of old-generation garbage per 100 MB of trace.)
  readonly #calls = new Map<string, OpenCall>();
  // The call opened last, while it is not emitted: the likeliest one for the next outcome.
  #newest: OpenCall | undefined;
  // Settled calls waiting for a flush line, in the order they settled, kept apart so a flush
  // never walks calls in flight. An array with a flag on each call rather than a Set: hashing
  // every call twice more cost more than the rules. Evicted calls leave stale entries (marked
  // emitted), counted out of #heldCount and swept when they outnumber the live ones.
  #settled: OpenCall[] = [];
  #heldCount = 0;
  // Calls in order of first appearance, for eviction. Emitted ones are skipped lazily: taking
  // the head of a Map after many deletions walks the holes they leave, which is quadratic.
  // Slots behind the head are cleared at once, so emitted calls are not kept alive.
  #order: (OpenCall | undefined)[] = [];
  #head = 0;
  // The line being processed; kept on the instance so per-rule calls allocate nothing.
  #lineHarness = '';
  #lineRoot: object = {};
  #lineNumber = 0;
  // Calls that got an outcome on the line being processed (a call may appear twice).
  #touched: OpenCall[] = [];
  // Lines in a row the line filter let through, and lines it still rests for.
  #filterPassed = 0;
  #filterRest = 0;
  readonly #skipUnmatched: boolean;
  readonly #onProvisional: ((record: CallRecord) => void) | undefined;
  #table: TraceTable | undefined;
  #pending: { line: number; value: object }[] = [];
  #ended = false;
  #out: CallRecord[] = [];
  #line = 0;
  #counts = {
    calls: 0,
    success: 0,
    partial: 0,
    error: 0,
    denied: 0,
    unknown: 0,
    malformed: 0,
    unrecognised: 0,
    evicted: 0,
  };
  readonly #malformedLines: MalformedLine[] = [];

  constructor(options: TraceNormaliserOptions = {}) {
    this.#tables = options.tables ?? builtinTraceTables();
    this.#options =
      options.vendorOnly === undefined
        ? {}
        : { vendorOnly: options.vendorOnly };
    // A logger that throws loses its line; the line it was about is still counted.
    this.#logger = guardLogger(options.logger);
    this.#window = options.window ?? 10_000;
    this.#skipUnmatched = options.skipUnmatchedLines === true;
    this.#onProvisional = options.onProvisional;
    if (!Number.isInteger(this.#window) || this.#window < 1) {
      throw new RangeError(
        `window must be a positive integer, got ${String(options.window)}`,
      );
    }
    const harness = options.harness ?? 'auto';
    if (harness !== 'auto') {
      this.#table = this.#tables.find((table) => table.harness === harness);
      if (this.#table === undefined) {
        const known = this.#tables.map((table) => table.harness).join(', ');
        throw new RangeError(
          `unknown harness "${harness}" (known: auto, ${known})`,
        );
      }
    }
  }

  /** Counts so far; final once {@link end} has run. */
  get summary(): TraceSummary {
    return {
      harness: this.#table?.harness ?? null,
      lines: this.#line,
      ...this.#counts,
      malformedLines: [...this.#malformedLines],
    };
  }

  /**
   * Reads the next physical line (without its newline). Returns the records this line
   * completed, usually none. Blank lines are skipped but counted, so line numbers stay true.
   */
  pushLine(text: string): readonly CallRecord[] {
    if (this.#ended) throw new Error('pushLine after end()');
    const line = ++this.#line;
    const filter = this.#skipUnmatched ? this.#table?.lineFilter : undefined;
    if (filter !== undefined && this.#filterRest === 0) {
      // Lines no rule of the known table can match are not parsed (see compileLineFilter).
      if (!filter(text)) {
        this.#filterPassed = 0;
        return noRecords;
      }
      // In a trace where every line matters the filter only costs: after a run of lines it let
      // through, it rests for a while and every line is parsed, which is always correct.
      if (++this.#filterPassed === filterPatience) {
        this.#filterPassed = 0;
        this.#filterRest = filterRest;
      }
    } else if (this.#filterRest > 0) {
      this.#filterRest -= 1;
    }
    const value = this.#parse(text, line);
    if (value === undefined) return noRecords;
    if (this.#table === undefined) {
      this.#detect(value, line);
    } else {
      this.#process(this.#table, value, line);
    }
    return this.#drain();
  }

  /** Ends the trace: every call still open is emitted, those without an outcome as unknown. */
  end(): readonly CallRecord[] {
    if (this.#ended) return noRecords;
    this.#ended = true;
    this.#counts.unrecognised += this.#pending.length;
    this.#pending = [];
    // The map holds calls in the order they opened; the newest (never emitted) opened last.
    for (const evidence of this.#calls.values()) this.#emit(evidence);
    this.#calls.clear();
    const newest = this.#newest;
    this.#newest = undefined;
    if (newest !== undefined) this.#emit(newest);
    this.#settled = [];
    this.#heldCount = 0;
    this.#order = [];
    this.#head = 0;
    return this.#drain();
  }

  #drain(): readonly CallRecord[] {
    if (this.#out.length === 0) return noRecords;
    const records = this.#out;
    this.#out = [];
    return records;
  }

  #parse(text: string, line: number): object | undefined {
    const value = parseTraceLine(text, line);
    if (typeof value === 'string') {
      this.#malformed(line, value);
      return undefined;
    }
    return value;
  }

  #malformed(line: number, message: string): void {
    this.#counts.malformed += 1;
    if (this.#malformedLines.length < malformedSampleLimit) {
      this.#malformedLines.push({ line, message });
    }
    this.#logger.warn(
      { line, reason: message },
      'malformed trace line skipped',
    );
  }

  #detect(value: object, line: number): void {
    const table = this.#tables.find((candidate) =>
      candidate.detects(value, value),
    );
    if (table === undefined) {
      // Held until a later line reveals the format; bounded so memory stays constant.
      this.#pending.push({ line, value });
      if (this.#pending.length > detectionBufferLimit) {
        this.#pending.shift();
        this.#counts.unrecognised += 1;
      }
      return;
    }
    this.#table = table;
    this.#logger.debug(
      { harness: this.#lineHarness, line },
      'trace format recognised',
    );
    const pending = this.#pending;
    this.#pending = [];
    for (const held of pending) this.#process(table, held.value, held.line);
    this.#process(table, value, line);
  }

  #process(table: TraceTable, root: object, line: number): void {
    this.#lineHarness = table.harness;
    this.#lineRoot = root;
    this.#lineNumber = line;
    for (const rule of candidateRules(table.index, root)) {
      if (!rule.matches(root, root)) continue;
      if (rule.each === undefined) {
        this.#apply(rule, root);
        continue;
      }
      const items = rule.each.read(root, root);
      if (Array.isArray(items)) {
        for (const item of items as unknown[]) {
          if (rule.eachMatches(item, root)) this.#apply(rule, item);
        }
      } else if (typeof items === 'object' && items !== null) {
        if (rule.eachMatches(items, root)) this.#apply(rule, items);
      }
    }
    const flushing = !table.holdUntilFlush || table.flushes(root, root);
    if (this.#touched.length > 0) {
      if (flushing) this.#touched.length = 0;
      else this.#settleLine(table);
    }
    if (this.#heldCount > 0 && flushing) this.#flush();
    while (this.#openCount() > this.#window) {
      if (this.#head >= this.#order.length) break;
      const oldest = this.#order[this.#head];
      this.#order[this.#head] = undefined;
      this.#head += 1;
      if (oldest === undefined || oldest.emitted) continue;
      this.#forget(oldest);
      if (oldest.held) {
        oldest.held = false;
        this.#heldCount -= 1;
      }
      if (!oldest.settled) this.#counts.evicted += 1;
      this.#emit(oldest);
    }
    const stale = this.#settled.length - this.#heldCount;
    if (stale > 1024 && stale > this.#heldCount / 8) {
      this.#settled = this.#settled.filter((evidence) => evidence.held);
    }
    // Calls emitted on their outcome (or a flush) stay in #order until swept here; without the
    // sweep a trace whose calls all settle would keep every call it ever saw.
    const queued = this.#order.length - this.#head;
    if (queued > 1024 && queued > 2 * this.#openCount()) {
      this.#order = this.#order
        .slice(this.#head)
        .filter((evidence) => evidence !== undefined && !evidence.emitted);
      this.#head = 0;
    }
  }

  // On a line that holds rather than flushes, after every rule of it ran (so a denial on the
  // same line has applied): a held call whose vendor outcome the table calls final is emitted
  // now; any other is reported provisionally.
  #settleLine(table: TraceTable): void {
    const touched = this.#touched;
    const { finalOutcomes } = table;
    for (const evidence of touched) {
      if (!evidence.held) continue;
      if (!evidence.denied && finalOutcomes.has(evidence.vendorOutcome)) {
        evidence.held = false;
        this.#heldCount -= 1;
        // Settled on this line, so usually the last entry: dropped now rather than by a sweep,
        // which would keep it (and promote it to the old generation) meanwhile.
        const settled = this.#settled;
        if (settled.at(-1) === evidence) settled.pop();
        this.#forget(evidence);
        this.#emit(evidence);
      } else if (this.#onProvisional !== undefined) {
        this.#onProvisional(normaliseCall(evidence, this.#options));
      }
    }
    touched.length = 0;
  }

  // Emits every settled call, in order of first appearance (ties in the order they settled).
  #flush(): void {
    const held = this.#settled;
    this.#heldCount = 0;
    // Usually one call settles per line: the array is then reused rather than replaced.
    const [only] = held;
    if (held.length === 1 && only !== undefined) {
      held.length = 0;
      this.#release(only);
      return;
    }
    this.#settled = [];
    const settled = held
      .filter((evidence) => evidence.held)
      .sort((a, b) => a.line - b.line);
    for (const evidence of settled) this.#release(evidence);
  }

  #release(evidence: OpenCall): void {
    if (!evidence.held) return;
    evidence.held = false;
    this.#forget(evidence);
    this.#emit(evidence);
  }

  #openCount(): number {
    const newest = this.#newest;
    return this.#calls.size + (newest === undefined ? 0 : 1);
  }

  // Stops finding a call by its id, as it is about to be emitted.
  #forget(evidence: OpenCall): void {
    if (evidence === this.#newest) this.#newest = undefined;
    else this.#calls.delete(evidence.callId);
  }

  #apply(rule: TraceRule, item: unknown): void {
    const root = this.#lineRoot;
    const line = this.#lineNumber;
    const id = rule.id.read(item, root);
    if (typeof id !== 'string' && typeof id !== 'number') {
      this.#logger.debug(
        { line, kind: rule.kind },
        'matching line has no call id; skipped',
      );
      return;
    }
    const callId = String(id);
    // An outcome usually names the call opened just before it: a string compare then spares
    // hashing the new id and probing a map of thousands of calls.
    const newest = this.#newest;
    let evidence = newest?.callId === callId ? newest : this.#calls.get(callId);
    if (evidence === undefined) {
      evidence = openCall(this.#lineHarness, callId, line);
      if (newest !== undefined) this.#calls.set(newest.callId, newest);
      this.#newest = evidence;
      this.#order.push(evidence);
    }
    const at = { item, root };
    readCallFacts(evidence, rule, at);
    switch (rule.kind) {
      case 'start':
        return;
      case 'denial':
        readDenial(evidence, rule, at);
        return;
      case 'outcome':
        if (rule.status === undefined) return;
        if (!evidence.held) {
          evidence.held = true;
          this.#heldCount += 1;
          this.#settled.push(evidence);
        }
        readOutcome(evidence, rule, at);
        if (
          this.#table?.holdUntilFlush === true &&
          this.#touched.at(-1) !== evidence
        )
          this.#touched.push(evidence);
        return;
    }
  }

  #emit(evidence: OpenCall): void {
    evidence.emitted = true;
    // A call that settles right after it opened is the newest in #order: let go of it now. An
    // emitted call left there lives until the sweep, long enough to be copied into the old
    // generation, which cost more than the rules.
    const order = this.#order;
    if (order.length > this.#head && order[order.length - 1] === evidence) {
      order.pop();
    }
    const record = normaliseCall(evidence, this.#options);
    this.#counts.calls += 1;
    // The outcome words are exactly the summary's count names.
    this.#counts[record.outcome] += 1;
    this.#out.push(record);
  }
}
