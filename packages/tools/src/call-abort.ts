/**
 * One call's cancellation, without the cost of an `AbortSignal` until someone reads one.
 *
 * On Node 20 creating an `AbortSignal` is the most expensive part of a trivial tool call, and
 * most tools never look at theirs. A `CallAbort` records the abort and runs plain listeners; its
 * `signal` is made on first read, already aborted if the call was aborted before.
 *
 * @example
 * ```ts
 * const abort = new CallAbort();
 * abort.onAbort((reason) => { … });
 * abort.abort(new DOMException('Timed out', 'TimeoutError'));
 * abort.signal.aborted; // true
 * ```
 */
export class CallAbort {
  #aborted = false;
  #reason: unknown = undefined;
  #controller: AbortController | undefined;
  #listeners: ((reason: unknown) => void)[] | undefined;

  /** Whether the call was aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why the call was aborted: a DOMException `TimeoutError`, the caller's reason, … */
  get reason(): unknown {
    return this.#reason;
  }

  /** A real AbortSignal for fetch, child processes and the like, made on first read. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts once; later calls are ignored. Listeners that throw do not stop the others. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const listener of listeners ?? []) {
      try {
        listener(reason);
      } catch {
        // A listener's failure must not keep the others, or the abort itself, from happening.
      }
    }
  }

  /** Runs `listener` on abort (at once if already aborted); returns the unsubscribe function. */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#aborted) {
      listener(this.#reason);
      return () => undefined;
    }
    (this.#listeners ??= []).push(listener);
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index >= 0) this.#listeners?.splice(index, 1);
    };
  }

  /** Follows another signal: aborts when it does. Returns the function that stops following. */
  follow(signal: AbortSignal | undefined): () => void {
    if (signal === undefined) return keepFollowing;
    if (signal.aborted) {
      this.abort(signal.reason);
      return keepFollowing;
    }
    const onAbort = (): void => {
      this.abort(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    return () => {
      signal.removeEventListener('abort', onAbort);
    };
  }
}

/** What `follow` returns when there is nothing to stop following: one function for all calls. */
function keepFollowing(): void {
  // Nothing was subscribed.
}
