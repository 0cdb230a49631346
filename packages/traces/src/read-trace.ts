import { StringDecoder } from 'node:string_decoder';
import type { CallRecord } from './call-record.ts';
import { TraceNormaliser } from './trace-normaliser.ts';
import type { TraceNormaliserOptions } from './trace-normaliser-options.ts';
import type { TraceSummary } from './trace-summary.ts';

/** The records of one trace, read lazily, plus counts that are final once iteration ends. */
export interface TraceReading extends AsyncIterable<CallRecord> {
  /** Counts so far; final after the iteration has finished. */
  readonly summary: TraceSummary;
}

type Chunk = string | Uint8Array;

const noop = (): void => undefined;

// Bytes decoded at a time (see TraceIterator's #read).
export const decodePiece = 16 * 1024;

const finished: IteratorReturnResult<undefined> = Object.freeze({
  done: true,
  value: undefined,
});

/**
 * The iterator behind {@link readTrace}. Written by hand rather than as an async generator: a
 * generator's `yield` awaits each record and queues its request, three promise steps per record
 * where this takes one, and with one record per call that cost more than the rules did. A
 * chunk's lines are read in one synchronous pass; its records are then handed out one `next()`
 * at a time.
 */
class TraceIterator implements AsyncIterator<CallRecord> {
  readonly #normaliser: TraceNormaliser;
  readonly #input: AsyncIterator<Chunk> | Iterator<Chunk>;
  readonly #decoder = new StringDecoder('utf8');
  #rest = '';
  #batch: CallRecord[] = [];
  #index = 0;
  #ended = false;
  // A refill in progress: calls to next() that overlap it wait for it rather than read along.
  #pending: Promise<void> | undefined;
  // Calls to next() queued behind a refill and not yet answered. The queue is let go in the same
  // step as the last answer, so the next call takes the fast path again: let go a tick later, as
  // a callback on the queue would, nearly every record went through the queue (three promises and
  // two closures each, more than the rules cost).
  #waiting = 0;

  constructor(
    normaliser: TraceNormaliser,
    input: AsyncIterable<Chunk> | Iterable<Chunk>,
  ) {
    this.#normaliser = normaliser;
    this.#input =
      Symbol.asyncIterator in input
        ? input[Symbol.asyncIterator]()
        : input[Symbol.iterator]();
  }

  next(): Promise<IteratorResult<CallRecord>> {
    if (this.#waiting === 0) {
      const record = this.#batch[this.#index];
      if (record !== undefined) {
        this.#index += 1;
        return Promise.resolve({ done: false, value: record });
      }
      if (this.#ended) return Promise.resolve(finished);
    }
    this.#waiting += 1;
    const refill = (this.#pending ?? Promise.resolve()).then(() =>
      this.#answer(),
    );
    // The caller gets refill's failure; the queue only waits for it, so it never rejects.
    this.#pending = refill.then(noop, noop);
    return refill;
  }

  async #answer(): Promise<IteratorResult<CallRecord>> {
    try {
      return await this.#refill();
    } finally {
      this.#waiting -= 1;
      if (this.#waiting === 0) this.#pending = undefined;
    }
  }

  async return(): Promise<IteratorResult<CallRecord>> {
    this.#ended = true;
    this.#batch = [];
    this.#index = 0;
    // Closes the input (a file stream is destroyed), as a for-await loop over it would.
    await this.#input.return?.();
    return finished;
  }

  async #refill(): Promise<IteratorResult<CallRecord>> {
    for (;;) {
      const record = this.#batch[this.#index];
      if (record !== undefined) {
        this.#index += 1;
        return { done: false, value: record };
      }
      if (this.#ended) return finished;
      this.#batch = [];
      this.#index = 0;
      let step: IteratorResult<Chunk>;
      try {
        step = await this.#input.next();
      } catch (error: unknown) {
        // As a generator would: the failure is reported once, then the reading is over.
        this.#ended = true;
        throw error;
      }
      if (step.done === true) {
        this.#finish();
      } else {
        this.#read(step.value);
      }
    }
  }

  #take(line: string): void {
    const records = this.#normaliser.pushLine(line);
    for (const record of records) this.#batch.push(record);
  }

  #read(chunk: Chunk): void {
    if (typeof chunk === 'string') {
      this.#readText(chunk);
      return;
    }
    // Decoded a piece at a time: the text being split is alive whenever the young generation is
    // collected, and a 64 KB chunk's text copied at every collection was most of what survived
    // them. Survivors make V8 grow its young generation, and that growth, not anything kept,
    // was most of the extra memory a longer trace took. Anything else the decoder takes (a DataView, from a caller in plain JavaScript) is decoded
    // whole, and anything it does not (an ArrayBuffer) is rejected by it, not skipped unread.
    if (!(chunk instanceof Uint8Array) || chunk.length <= decodePiece) {
      this.#readText(this.#decoder.write(chunk));
      return;
    }
    for (let at = 0; at < chunk.length; at += decodePiece) {
      this.#readText(this.#decoder.write(chunk.subarray(at, at + decodePiece)));
    }
  }

  #readText(chunk: string): void {
    const text = this.#rest + chunk;
    let start = 0;
    let newline = text.indexOf('\n', start);
    while (newline !== -1) {
      const end =
        newline > start && text.charCodeAt(newline - 1) === 13
          ? newline - 1
          : newline;
      this.#take(text.slice(start, end));
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    this.#rest = text.slice(start);
  }

  #finish(): void {
    this.#ended = true;
    const rest = this.#rest + this.#decoder.end();
    this.#rest = '';
    if (rest !== '') this.#take(rest);
    for (const record of this.#normaliser.end()) this.#batch.push(record);
  }
}

/**
 * Reads a JSONL trace of any size in constant memory: the input (a stream, or any iterable of
 * text or byte chunks) is consumed chunk by chunk and split into lines, and only calls still
 * waiting for an outcome are held. A malformed line is counted (see `summary.malformedLines`)
 * and never ends the reading. Errors of the input itself (a missing file, a broken pipe) reject
 * the iteration.
 *
 * @example
 * ```ts
 * const trace = readTrace(createReadStream('run.jsonl'), { harness: 'auto' });
 * for await (const record of trace) if (record.outcome === 'error') console.log(record.tool);
 * console.log(trace.summary.error, 'failed calls');
 * ```
 */
export function readTrace(
  input: AsyncIterable<Chunk> | Iterable<Chunk>,
  options: TraceNormaliserOptions = {},
): TraceReading {
  const normaliser = new TraceNormaliser(options);
  return {
    get summary() {
      return normaliser.summary;
    },
    [Symbol.asyncIterator]() {
      return new TraceIterator(normaliser, input);
    },
  };
}
