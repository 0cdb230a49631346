import { type FleetCircuit } from './fleet-circuit.ts';
import { type FleetKeys } from './fleet-keys.ts';
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

  /** Claims the coming trial; resolves with the claim's end (server ms) if granted. */
  async claim(
    circuit: FleetCircuit,
    token: string,
  ): Promise<number | undefined> {
    const granted = await this.#run(circuit, {
      script: claimScript,
      ms: this.#context.claimMs,
      token,
    });
    return granted ? circuit.shared?.trialUntil : undefined;
  }

  /** Starts the trial this process's call runs now. */
  async start(circuit: FleetCircuit, token: string): Promise<void> {
    await this.#run(circuit, {
      script: startScript,
      ms: circuit.rules.leaseMs,
      token,
      // Another process holds the trial: this process's own half-open view is wrong.
      denied: () => {
        circuit.startDenied();
      },
    });
  }

  /** Writes the trial's result, if this process still holds its lease. */
  settle(circuit: FleetCircuit, token: string, failed: boolean): void {
    const { link, keys, processId } = this.#context;
    const { tool } = circuit;
    if (!this.#context.healthy()) return;
    link
      .eval(
        settleScript,
        [keys.states, keys.epochs, keys.lease(tool), keys.window(tool)],
        [keys.channel, processId, tool, token, failed ? 'failure' : 'success'],
      )
      .then(
        (reply) => {
          this.#context.apply(tool, reply[1]);
        },
        (error: unknown) => {
          this.#context.degrade(error);
        },
      );
  }

  /** Runs the claim or start script for one tool; applies its record, returns its grant. */
  async #run(
    circuit: FleetCircuit,
    step: {
      script: FleetScript;
      ms: number;
      token: string;
      denied?: () => void;
    },
  ): Promise<boolean> {
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
        ],
      );
      const granted = reply[2] === 1;
      if (!granted) step.denied?.();
      this.#context.apply(tool, reply[1]);
      return granted;
    } catch (error: unknown) {
      this.#context.degrade(error);
      return false;
    }
  }
}
