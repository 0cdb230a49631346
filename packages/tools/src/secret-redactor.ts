const REDACTED = '[REDACTED]';
const UNREADABLE = '[Unreadable]';
const MAX_DEPTH = 32;
// Tool arguments reuse a small set of keys, so the verdict per key is cached; the bound keeps a
// model that invents keys from growing the cache without limit.
const MAX_CACHED_KEYS = 1024;

// Compared after lower-casing and removing everything but letters and digits, so `api_key`,
// `apiKey` and `API-KEY` are one key. `token` only at the end: `maxTokens` is not a secret.
const SECRET_PARTS = [
  'password',
  'passwd',
  'secret',
  'apikey',
  'authorization',
  'cookie',
  'privatekey',
  'accesskey',
  'credential',
  'bearer',
];

function normalise(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * How secret-looking keys are recognised; `extraKeys` adds the caller's own. One redactor serves
 * every surface (logs, events, spans, `context.params`, model-visible text), so they agree.
 */
export interface RedactOptions {
  readonly extraKeys?: readonly (string | RegExp)[];
}

/** Decides, once per registry, which keys are secrets. */
export class SecretRedactor {
  readonly #extraNames: ReadonlySet<string>;
  readonly #extraPatterns: readonly RegExp[];
  readonly #verdicts = new Map<string, boolean>();

  constructor(options: RedactOptions = {}) {
    const extra = options.extraKeys ?? [];
    this.#extraNames = new Set(
      extra
        .filter((key): key is string => typeof key === 'string')
        .map(normalise),
    );
    this.#extraPatterns = extra.filter(
      (key): key is RegExp => key instanceof RegExp,
    );
  }

  /** True for keys such as password, token, api key, authorization, cookie, secret, private key. */
  isSecretKey(key: string): boolean {
    const cached = this.#verdicts.get(key);
    if (cached !== undefined) return cached;
    const verdict = this.#judge(key);
    if (this.#verdicts.size < MAX_CACHED_KEYS) this.#verdicts.set(key, verdict);
    return verdict;
  }

  #judge(key: string): boolean {
    const flat = normalise(key);
    if (flat === '') return false;
    if (flat.endsWith('token') || flat === 'auth') return true;
    if (SECRET_PARTS.some((part) => flat.includes(part))) return true;
    if (this.#extraNames.has(flat)) return true;
    return this.#extraPatterns.some((pattern) => pattern.test(key));
  }

  /**
   * A copy of `value` with every secret-looking key's value censored, at any depth. Cycles and
   * excessive depth are cut, and `__proto__` keys are copied as plain data.
   */
  redact(value: unknown): unknown {
    return this.#redact(value, 0, new WeakSet());
  }

  /**
   * `value` with every secret-looking key's value censored and every occurrence of `secrets`
   * scrubbed from its strings, at any depth. Unlike {@link redact}, parts with nothing to censor
   * are returned as they are (the same objects), so a tool's data keeps its identity and costs
   * no copy when nothing is secret. Plain objects and arrays are walked (own enumerable keys);
   * cycles and levels deeper than 32 are cut; a getter or Proxy that throws makes the whole value
   * `[Unreadable]` rather than let it through unchecked.
   */
  censor(value: unknown, secrets: readonly string[] = []): unknown {
    try {
      return this.#censor(value, 0, { secrets, seen: new WeakSet() });
    } catch {
      return UNREADABLE;
    }
  }

  #censor(
    value: unknown,
    depth: number,
    walk: {
      readonly secrets: readonly string[];
      readonly seen: WeakSet<object>;
    },
  ): unknown {
    const { secrets, seen } = walk;
    if (typeof value === 'string') return scrubSecrets(value, secrets);
    if (typeof value !== 'object' || value === null) return value;
    // Cut, never shared: the shared object may be the one being censored, secret still inside.
    if (seen.has(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Truncated: too deep]';
    seen.add(value);
    let copy: unknown[] | Record<string, unknown> | undefined;
    if (Array.isArray(value)) {
      value.forEach((item: unknown, index) => {
        const censored = this.#censor(item, depth + 1, walk);
        if (censored !== item) {
          copy ??= [...(value as unknown[])];
          (copy as unknown[])[index] = censored;
        }
      });
    } else {
      const entries = Object.entries(value);
      entries.forEach(([key, item]) => {
        const censored = this.isSecretKey(key)
          ? REDACTED
          : this.#censor(item, depth + 1, walk);
        if (censored === item) return;
        if (copy === undefined) {
          const fresh: Record<string, unknown> = {};
          for (const [name, original] of entries)
            setData(fresh, name, original);
          copy = fresh;
        }
        setData(copy as Record<string, unknown>, key, censored);
      });
    }
    seen.delete(value);
    return copy ?? value;
  }

  /** Every string found under a secret-looking key, so it can be scrubbed from messages. */
  secretValues(value: unknown): string[] {
    const found: string[] = [];
    this.#collect(value, 0, { seen: new WeakSet(), found });
    return found;
  }

  #redact(value: unknown, depth: number, seen: WeakSet<object>): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Truncated: too deep]';
    seen.add(value);
    if (Array.isArray(value)) {
      const copy = value.map((item) => this.#redact(item, depth + 1, seen));
      seen.delete(value);
      return copy;
    }
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const censored = this.isSecretKey(key)
        ? REDACTED
        : this.#redact(item, depth + 1, seen);
      setData(copy, key, censored);
    }
    seen.delete(value);
    return copy;
  }

  #collect(
    value: unknown,
    depth: number,
    walk: { readonly seen: WeakSet<object>; readonly found: string[] },
  ): void {
    const { seen } = walk;
    if (
      typeof value !== 'object' ||
      value === null ||
      seen.has(value) ||
      depth >= MAX_DEPTH
    ) {
      return;
    }
    seen.add(value);
    for (const [key, item] of Object.entries(value)) {
      if (this.isSecretKey(key)) {
        // Everything under a secret key is secret, including the leaves of a nested object
        // (`auth: { user, pass }`), since redact() censors that whole object.
        collectLeaves(item, depth + 1, walk);
      } else {
        this.#collect(item, depth + 1, walk);
      }
    }
  }
}

/** Sets a key as plain data; assigning `__proto__` would set the object's prototype instead. */
function setData(
  target: Record<string, unknown>,
  key: string,
  value: unknown,
): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function collectLeaves(
  value: unknown,
  depth: number,
  walk: { readonly seen: WeakSet<object>; readonly found: string[] },
): void {
  if (typeof value === 'string') {
    // Shorter values would scrub ordinary words out of messages.
    if (value.length >= 4) walk.found.push(value);
    return;
  }
  if (typeof value === 'number') {
    walk.found.push(String(value));
    return;
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    walk.seen.has(value) ||
    depth >= MAX_DEPTH
  ) {
    return;
  }
  walk.seen.add(value);
  for (const item of Object.values(value)) collectLeaves(item, depth + 1, walk);
}

/** Replaces every occurrence of each secret in `text`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  return result;
}
