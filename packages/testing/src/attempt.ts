import type { Provider } from './provider-protocol.ts';

/** How an attempt ended. */
export const attemptOutcomes = [
  'completed',
  'client-aborted',
  'server-aborted',
  'stalled',
] as const;

/** One of {@link attemptOutcomes}. */
export type AttemptOutcome = (typeof attemptOutcomes)[number];

/**
 * What the server did with a request:
 * - `matched`: a scripted step answered it (with success, a failure or a fault);
 * - `unmatched`: no step matched; a provider-shaped 400 was sent;
 * - `rejected`: the provider itself would refuse it (auth, bad JSON, wrong path, strict
 *   tool-history check, content filter).
 */
export type AttemptDisposition = 'matched' | 'unmatched' | 'rejected';

/**
 * Live control over one response. All waits are promises, so tests wait on events, never on
 * timers.
 */
export interface StreamController {
  /** Resolves once at least `n` frames have been handed to the socket; rejects if the attempt ends first. */
  sent(n: number): Promise<void>;
  /** Resolves once the stream is stalled (scripted or by {@link stall}); rejects if it ends first. */
  stalled(): Promise<void>;
  /** Stop writing after the frame in flight. Connection stays open. */
  stall(): void;
  /** Continue a stalled stream, or cut a scripted `delaysBy` short. */
  resume(): void;
  /** Destroy the socket now. The outcome is `server-aborted`. */
  abort(): void;
}

/** One journal entry: a request and everything the server did with it. */
export interface Attempt {
  /** 1-based number across the whole server, in arrival order. */
  readonly number: number;
  readonly provider: Provider | undefined;
  readonly method: string;
  readonly path: string;
  /** Request headers, lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed request body, or `undefined` when it was not JSON. */
  readonly body: unknown;
  readonly disposition: AttemptDisposition;
  /** Why a request was unmatched or rejected. */
  readonly reason: string | undefined;
  readonly conversation: string | undefined;
  readonly step: string | undefined;
  /** 1-based position in the step's attempt queue that served this request. */
  readonly stepAttempt: number | undefined;
  /** False when the attempt was handed back to the queue (a cancelled delay). */
  readonly consumed: boolean;
  /** The response status, once headers were written. */
  readonly status: number | undefined;
  /** Frames fully written, in order. */
  readonly frames: readonly string[];
  readonly framesSent: number;
  /** Sizes of the individual socket writes, in bytes. */
  readonly writes: readonly number[];
  /** `undefined` while the attempt is in flight. */
  readonly outcome: AttemptOutcome | undefined;
  /** Resolves with the outcome when the response ends. */
  readonly settled: Promise<AttemptOutcome>;
  readonly stream: StreamController;
}
