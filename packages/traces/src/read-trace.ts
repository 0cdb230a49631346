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

/**
 * Reads a JSONL trace of any size in constant memory: the input (a stream, or any iterable of
 * text or byte chunks) is consumed chunk by chunk and split into lines, and only calls still waiting for an outcome are held. A malformed line is
 * counted (see `summary.malformedLines`) and never ends the reading. Errors of the input itself
 * (a missing file, a broken pipe) reject the iteration.
 *
 * @example
 * ```ts
 * const trace = readTrace(createReadStream('run.jsonl'), { harness: 'auto' });
 * for await (const record of trace) if (record.outcome === 'error') console.log(record.tool);
 * console.log(trace.summary.error, 'failed calls');
 * ```
 */
export function readTrace(
  input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  options: TraceNormaliserOptions = {},
): TraceReading {
  const normaliser = new TraceNormaliser(options);
  return {
    get summary() {
      return normaliser.summary;
    },
    async *[Symbol.asyncIterator]() {
      const decoder = new StringDecoder('utf8');
      let rest = '';
      // A chunk's lines are read in one synchronous pass and its records yielded after: waiting
      // on the consumer once per line (most complete no call) cost more than the rules did.
      const batch: CallRecord[] = [];
      const take = (line: string): void => {
        const records = normaliser.pushLine(line);
        for (const record of records) batch.push(record);
      };
      for await (const chunk of input) {
        const text =
          rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
        let start = 0;
        let newline = text.indexOf('\n', start);
        while (newline !== -1) {
          const end =
            newline > start && text.charCodeAt(newline - 1) === 13
              ? newline - 1
              : newline;
          take(text.slice(start, end));
          start = newline + 1;
          newline = text.indexOf('\n', start);
        }
        rest = text.slice(start);
        // A plain loop, not `yield* batch`: delegating to a sync iterable wraps every record in
        // an extra async-from-sync step.
        for (const record of batch) yield record;
        batch.length = 0;
      }
      rest += decoder.end();
      if (rest !== '') take(rest);
      for (const record of batch) yield record;
      batch.length = 0;
      for (const record of normaliser.end()) yield record;
    },
  };
}
