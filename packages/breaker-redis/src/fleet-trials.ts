import { type FleetCircuit, type TrialResult } from './fleet-circuit.ts';
import { type FleetKeys } from './fleet-keys.ts';
import { type FleetRecord, parseFleetRecord } from './fleet-record.ts';
import {
  slotClaimScript,
  slotSettleScript,
  slotStartScript,
} from './fleet-slot-scripts.ts';
import {
  claimScript,
  type FleetScript,
  settleScript,
  startScript,
} from './fleet-scripts.ts';
import { type RedisLink } from './redis-link.ts';

/** What the trial requests need from their store. */
export interface FleetTrialsContext {
  readonly link: RedisLink;
  readonly keys: FleetKeys;
  readonly processId: string;
  readonly claimMs: number;
  healthy(): boolean;
  /** Takes a record Redis answered for one tool. */
  apply(tool: string, raw: unknown): void;
  /** Sends the store to its local breakers. */
  degrade(error: unknown): void;
}

/**
 * The fleet's half-open trial as seen from one process: claim it ahead, start it (turn the claim
 * into the running trial's lease), settle it with its result. None of these rejects: a failure
 * degrades the store instead.
 */
export class FleetTrials {
  readonly #context: FleetTrialsContext;

  constructor(context: FleetTrialsContext) {
    this.#context = context;
  }

  /** Claims the coming trial (or one of its slots); resolves with the claim's end (server ms) if granted. */
  async claim(
    circuit: FleetCircuit,
    token: string,
  ): Promise<number | undefined> {
    const granted = await this.#run(circuit, {
      script: slotted(circuit) ? slotClaimScript : claimScript,
      ms: this.#context.claimMs,
      token,
    });
    if (granted === undefined) return undefined;
    return slotted(circuit) ? granted.trials?.[token] : granted.trialUntil;
  }

  /** Starts the trial this process's call runs now; resolves with whether it was granted. */
  async start(circuit: FleetCircuit, token: string): Promise<boolean> {
    const granted = await this.#run(circuit, {
      script: slotted(circuit) ? slotStartScript : startScript,
      ms: circuit.rules.leaseMs,
      token,
      // Another process holds the trial: this process's own half-open view is wrong.
      denied: () => {
        circuit.startDenied();
      },
    });
    return granted !== undefined;
  }

  /** Writes the trial's result, if this process still holds its lease (or slot). */
  settle(
    circuit: FleetCircuit,
    token: string,
    { failed, slow }: TrialResult,
  ): void {
    const { link, keys, processId } = this.#context;
    const { tool, rules } = circuit;
    if (!this.#context.healthy()) return;
    const names = [
      keys.states,
      keys.epochs,
      keys.lease(tool),
      keys.window(tool),
    ];
    const args = [keys.channel, processId, tool, token];
    const settling = slotted(circuit)
      ? link.eval(slotSettleScript, names, [
          ...args,
          failed ? 1 : 0,
          slow ? 1 : 0,
          rules.permittedCallsInHalfOpen ?? 1,
          rules.failureRatePct,
          rules.slowCallRatePct ?? 0,
        ])
      : link.eval(settleScript, names, [
          ...args,
          failed || slow ? 'failure' : 'success',
        ]);
    settling.then(
      (reply) => {
        this.#context.apply(tool, reply[1]);
      },
      (error: unknown) => {
        this.#context.degrade(error);
      },
    );
  }

  /** Runs the claim or start script for one tool; applies its record, returns it if granted. */
  async #run(
    circuit: FleetCircuit,
    step: {
      script: FleetScript;
      ms: number;
      token: string;
      denied?: () => void;
    },
  ): Promise<FleetRecord | undefined> {
    const { link, keys, processId } = this.#context;
    const { tool, rules } = circuit;
    try {
      const reply = await link.eval(
        step.script,
        [keys.states, keys.epochs, keys.lease(tool)],
        [
          keys.channel,
          processId,
          tool,
          rules.resetTimeoutMs,
          step.ms,
          step.token,
          ...(slotted(circuit) ? [rules.permittedCallsInHalfOpen ?? 1] : []),
        ],
      );
      const granted = reply[2] === 1;
      if (!granted) step.denied?.();
      this.#context.apply(tool, reply[1]);
      return granted ? parseFleetRecord(reply[1]) : undefined;
    } catch (error: unknown) {
      this.#context.degrade(error);
      return undefined;
    }
  }
}

/** Whether the circuit's breaker permits several half-open trials (fleet-slot-scripts.ts). */
function slotted(circuit: FleetCircuit): boolean {
  return (circuit.rules.permittedCallsInHalfOpen ?? 1) > 1;
}
