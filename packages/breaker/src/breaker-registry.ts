import {
  type BreakerOptions,
  validateBreakerOptions,
} from './breaker-options.ts';
import {
  type BreakerSnapshot,
  createToolBreaker,
  type ToolBreaker,
} from './tool-breaker.ts';

/**
 * One breaker per tool name, created lazily on first `get()`. Breakers live as long as the
 * registry: creating one per call would leak timers and listeners (opossum #245, #248).
 *
 * @example
 * ```ts
 * const breakers = new BreakerRegistry({ resetTimeoutMs: 10_000 });
 * const response = await breakers
 *   .get('web_fetch', { timeoutMs: 5_000 })
 *   .execute(({ signal }) => webFetch(args, signal));
 * // on exit
 * breakers.shutdownAll();
 * ```
 */
export class BreakerRegistry {
  readonly #defaults: BreakerOptions;
  readonly #breakers = new Map<string, ToolBreaker>();
  #isShutdown = false;

  /** `defaults` apply to every breaker this registry creates; they are validated now. */
  constructor(defaults: BreakerOptions = {}) {
    validateBreakerOptions(defaults);
    this.#defaults = { ...defaults };
  }

  /**
   * The breaker for `name`, created on first use with the defaults plus `overrides`. Options
   * apply at creation only: overrides passed for an existing name are ignored. After
   * `shutdownAll()`, a new name gets a breaker that is already shut down.
   */
  get(name: string, overrides: BreakerOptions = {}): ToolBreaker {
    const existing = this.#breakers.get(name);
    if (existing !== undefined) return existing;
    const given: unknown = overrides;
    if (typeof given !== 'object' || given === null) {
      throw new TypeError(
        `Breaker overrides for "${name}" must be an object, got ${given === null ? 'null' : typeof given}`,
      );
    }
    // Validated merged, not alone: `{ buckets: 7 }` is fine over defaults of `windowMs: 7_000`.
    const breaker = createToolBreaker(name, {
      ...this.#defaults,
      ...definedOnly(overrides),
    });
    if (this.#isShutdown) breaker.shutdown();
    this.#breakers.set(name, breaker);
    return breaker;
  }

  /** Whether a breaker exists for `name`. */
  has(name: string): boolean {
    return this.#breakers.has(name);
  }

  /** A snapshot of every breaker, in creation order. */
  snapshots(): BreakerSnapshot[] {
    return [...this.#breakers.values()].map((breaker) => breaker.snapshot());
  }

  /** Shuts every breaker down: no timers or listeners remain, and later calls are refused. */
  shutdownAll(): void {
    this.#isShutdown = true;
    for (const breaker of this.#breakers.values()) breaker.shutdown();
  }
}

// An override of `undefined` means "not given", not "erase the default".
function definedOnly(options: BreakerOptions): BreakerOptions {
  const defined: BreakerOptions = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  );
  return defined;
}
