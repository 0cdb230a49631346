import { randomBytes } from 'node:crypto';
import { type FleetKeys } from './fleet-keys.ts';
import { readGeneration } from './fleet-resync.ts';
import { type RedisLink } from './redis-link.ts';

/**
 * A healthy store's heartbeat, one command per `probeIntervalMs`: a single script on the command
 * connection reads the fleet's generation (so a flushed, evicted or replaced keyspace is noticed)
 * and publishes a fresh message on a channel only this process listens on. Its reply proves the
 * command connection alive, the message arriving proves the pub/sub connection alive; a `PING`
 * on the pub/sub connection beside a generation read would cost two commands a beat.
 */
export class FleetHeartbeat {
  /** This process's own channel. */
  readonly channel: string;
  readonly #link: RedisLink;
  readonly #keys: FleetKeys;
  #waiting:
    { readonly message: string; readonly resolve: () => void } | undefined;
  readonly #listener = (message: string): void => {
    // Anything else is the late echo of a beat that already timed out.
    if (this.#waiting?.message !== message) return;
    this.#waiting.resolve();
    this.#waiting = undefined;
  };

  constructor(link: RedisLink, keys: FleetKeys, processId: string) {
    this.#link = link;
    this.#keys = keys;
    this.channel = keys.beat(processId);
  }

  /**
   * Subscribes the pub/sub connection to the fleet's channel and to this process's own, in one
   * SUBSCRIBE: one round trip on the way to healthy, as before the heartbeat had a channel.
   */
  async subscribe(
    fleetChannel: string,
    fleetListener: (message: string) => void,
  ): Promise<void> {
    await this.#link.subscribe(
      new Map([
        [fleetChannel, fleetListener],
        [this.channel, this.#listener],
      ]),
    );
  }

  /**
   * One beat. Resolves with the fleet's generation; throws when either connection failed to
   * answer within the command timeout (the one that did not is dropped and connected again).
   */
  async beat(): Promise<string> {
    const message = randomBytes(8).toString('hex');
    const delivered = new Promise<void>((resolve) => {
      this.#waiting = { message, resolve };
    });
    try {
      const generation = await readGeneration(this.#link, this.#keys, {
        channel: this.channel,
        message,
      });
      await this.#link.delivered(delivered);
      return generation;
    } finally {
      this.#waiting = undefined;
    }
  }
}
