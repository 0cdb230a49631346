/**
 * The names of the fleet's keys and channel under one prefix. Every script names its keys through
 * this, so the layout is written down in one place (and in docs/fleet.md).
 */
export class FleetKeys {
  readonly prefix: string;
  /** The pub/sub channel every transition is announced on. */
  readonly channel: string;
  /** Hash: tool → its record (JSON), for tools that are not closed. */
  readonly states: string;
  /** Hash: tool → its last epoch. */
  readonly epochs: string;

  constructor(prefix: string) {
    this.prefix = prefix;
    this.channel = `${prefix}events`;
    this.states = `${prefix}states`;
    this.epochs = `${prefix}epochs`;
  }

  /**
   * The channel only one process listens on: its heartbeat publishes there, so one script proves
   * both of its connections alive (see FleetHeartbeat).
   */
  beat(processId: string): string {
    return `${this.prefix}beat:${processId}`;
  }

  /** Hash: one tool's rolling window, `c<bucket>` and `f<bucket>` counts. */
  window(tool: string): string {
    return `${this.prefix}window:${tool}`;
  }

  /** String: the token of the process holding one tool's trial claim or lease; always expires. */
  lease(tool: string): string {
    return `${this.prefix}lease:${tool}`;
  }
}
