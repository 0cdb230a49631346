import { MAX_RECORD_BYTES } from './fleet-scripts.ts';

/** The states a tool's circuit can have in the shared store. */
export type FleetState = 'closed' | 'open' | 'half_open';

/** One tool's shared state as the store holds it; every time is the Redis server's clock. */
export interface FleetRecord {
  readonly state: FleetState;
  /** Grows with every transition of the tool, so a late message never undoes a newer one. */
  readonly epoch: number;
  /** When the circuit opened (server ms), while open or half-open. */
  readonly openedAt?: number;
  /** When the trial lease was taken (server ms) and how long it lasts, while half-open. */
  readonly leaseAt?: number;
  readonly leaseMs?: number;
  /**
   * While open: the process that claimed the next trial, and when its claim runs out (server
   * ms). Until then every other process refuses; the claimant's first call once due is the trial.
   */
  readonly trialBy?: string;
  readonly trialUntil?: number;
  /** The process whose outcome decided the transition (for a hold: the operator's). */
  readonly by?: string;
  /**
   * An operator's fleet-wide hold (`store.fleet.forceOpen` / `forceClose`): while it is held the
   * fleet's rules never move the tool (no trial while open, no opening while closed). Only an
   * open record holds `'open'`, only a closed one `'closed'`.
   */
  readonly forced?: FleetHold;
  /** When the hold was set (server ms). */
  readonly forcedAt?: number;
  /**
   * Only for a breaker permitting several half-open trials (see fleet-slot-scripts.ts): how many,
   * and the slots taken, each token → when it runs out (server ms): claims while open, running
   * trials while half-open.
   */
  readonly permitted?: number;
  readonly trials?: Readonly<Record<string, number>>;
  /** While half-open with several trials: the results so far, failed and slow ones among them. */
  readonly trialsEnded?: number;
  readonly trialsFailed?: number;
  readonly trialsSlow?: number;
}

/** The two holds an operator can set on a tool fleet-wide. */
export type FleetHold = 'open' | 'closed';

/** A message on the fleet's channel. */
export interface FleetEvent {
  readonly tool: string;
  /** The server's clock when the transition happened. */
  readonly now: number;
  readonly record: FleetRecord;
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Reads a record from anything (what Redis holds may have been written by anyone); `undefined`
 * when it is not a well-formed record.
 */
export function parseFleetRecord(value: unknown): FleetRecord | undefined {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    // The scripts cap what they answer; this caps what anyone else could have sent.
    if (value.length > MAX_RECORD_BYTES) return undefined;
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return undefined;
  }
  const { state, epoch, openedAt, leaseAt, leaseMs, by, trialBy, trialUntil } =
    parsed as Record<string, unknown>;
  if (!isTime(epoch)) return undefined;
  const { forced, forcedAt } = parsed as Record<string, unknown>;
  let hold: { forced?: FleetHold; forcedAt?: number } = {};
  if (forced !== undefined) {
    // A hold that does not match its state (or has no time) is not a record of ours.
    if ((forced !== 'open' && forced !== 'closed') || forced !== state) {
      return undefined;
    }
    if (!isTime(forcedAt)) return undefined;
    hold = { forced, forcedAt };
  }
  const byField = {
    ...(typeof by === 'string' ? { by } : {}),
    ...hold,
    ...slotFields(parsed as Record<string, unknown>, state === 'half_open'),
  };
  const claim =
    typeof trialBy === 'string' && isTime(trialUntil)
      ? { trialBy, trialUntil }
      : {};
  switch (state) {
    case 'closed':
      return { state, epoch, ...byField };
    case 'open':
      return isTime(openedAt)
        ? { state, epoch, openedAt, ...byField, ...claim }
        : undefined;
    case 'half_open':
      return isTime(openedAt) && isTime(leaseAt) && isTime(leaseMs)
        ? { state, epoch, openedAt, leaseAt, leaseMs, ...byField }
        : undefined;
    default:
      return undefined;
  }
}

/** The fields of several half-open trials, when they are well formed; else none of them. */
function slotFields(
  parsed: Record<string, unknown>,
  halfOpen: boolean,
): Pick<
  FleetRecord,
  'permitted' | 'trials' | 'trialsEnded' | 'trialsFailed' | 'trialsSlow'
> {
  const { permitted, trials, trialsEnded, trialsFailed, trialsSlow } = parsed;
  if (!isTime(permitted) || permitted < 2) return {};
  if (typeof trials !== 'object' || trials === null || Array.isArray(trials)) {
    return {};
  }
  const entries = Object.entries(trials as Record<string, unknown>);
  if (entries.length > permitted || !entries.every(([, at]) => isTime(at))) {
    return {};
  }
  const slots = {
    permitted,
    trials: Object.fromEntries(entries) as Record<string, number>,
  };
  if (!halfOpen) return slots;
  return isTime(trialsEnded) && isTime(trialsFailed) && isTime(trialsSlow)
    ? { ...slots, trialsEnded, trialsFailed, trialsSlow }
    : {};
}

/** Reads a channel message; `undefined` when it is not a well-formed event. */
export function parseFleetEvent(message: string): FleetEvent | undefined {
  // Anyone may publish on the channel: a long message is not parsed at all.
  if (message.length > 2 * MAX_RECORD_BYTES) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { tool, now, record } = parsed as Record<string, unknown>;
  const checked = parseFleetRecord(record);
  if (typeof tool !== 'string' || !isTime(now) || checked === undefined) {
    return undefined;
  }
  return { tool, now, record: checked };
}
