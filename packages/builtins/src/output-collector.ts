/** What an {@link OutputCollector} kept of a stream. */
export interface CollectedOutput {
  /** The whole output, or its head and tail around a marker when it passed the cap. */
  readonly text: string;
  /** Bytes the stream produced, kept or not. */
  readonly bytes: number;
  readonly truncated: boolean;
}

/**
 * Keeps at most `maxBytes` of a stream: the first half and the last half. The head shows how a
 * command started, the tail how it ended, and memory stays bounded whatever the command prints.
 */
export class OutputCollector {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(maxBytes: number) {
    this.#headLimit = Math.ceil(maxBytes / 2);
    this.#tailLimit = Math.floor(maxBytes / 2);
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(rest.length, this.#headLimit - this.#headBytes);
      this.#head.push(rest.subarray(0, take));
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    // Drop whole chunks that the tail no longer needs; the last partial one is cut in result().
    while (
      this.#tail.length > 1 &&
      this.#tailBytes - (this.#tail[0]?.length ?? 0) >= this.#tailLimit
    ) {
      this.#tailBytes -= this.#tail.shift()?.length ?? 0;
    }
  }

  result(): CollectedOutput {
    const head = Buffer.concat(this.#head);
    const tail = Buffer.concat(this.#tail);
    const kept = head.length + Math.min(tail.length, this.#tailLimit);
    if (kept === this.#total) {
      return {
        text: Buffer.concat([head, tail]).toString('utf8'),
        bytes: this.#total,
        truncated: false,
      };
    }
    const omitted = this.#total - kept;
    return {
      text: `${head.toString('utf8')}\n[… ${omitted} bytes omitted …]\n${tail
        .subarray(tail.length - this.#tailLimit)
        .toString('utf8')}`,
      bytes: this.#total,
      truncated: true,
    };
  }
}
