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
   * excessive depth are cut, and `__proto__` keys are copied as plain data. When `found` is
   * given, the values it censors are added to it, as {@link secretValues} would find them, so
   * one walk does both.
   */
  redact(value: unknown, found?: string[]): unknown {
    return this.#redact(jsonView(value, '', false), 0, {
      ancestors: [],
      found,
    });
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
    if (typeof value === 'string') return scrubSecrets(value, secrets);
    if (typeof value !== 'object' || value === null) return value;
    try {
      return this.#censor(jsonView(value, '', true), 0, {
        secrets,
        ancestors: [],
      });
    } catch {
      return UNREADABLE;
    }
  }

  #censor(value: unknown, depth: number, walk: CensorWalk): unknown {
    const { secrets, ancestors } = walk;
    if (typeof value === 'string') return scrubSecrets(value, secrets);
    if (typeof value !== 'object' || value === null) return value;
    // Cut, never shared: the shared object may be the one being censored, secret still inside.
    if (ancestors.includes(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Truncated: too deep]';
    ancestors.push(value);
    let copy: unknown[] | Record<string, unknown> | undefined;
    if (Array.isArray(value)) {
      const items = value as readonly unknown[];
      for (let index = 0; index < items.length; index++) {
        const item = items[index];
        const censored = this.#censor(
          jsonView(item, String(index), true),
          depth + 1,
          walk,
        );
        if (censored !== item) {
          const changed: unknown[] = (copy as unknown[] | undefined) ?? [
            ...items,
          ];
          changed[index] = censored;
          copy = changed;
        }
      }
    } else {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      const items = keys.map((key) => record[key]);
      let index = 0;
      for (const key of keys) {
        const item = items[index];
        index += 1;
        const censored = this.isSecretKey(key)
          ? REDACTED
          : this.#censor(jsonView(item, key, true), depth + 1, walk);
        if (censored === item) continue;
        if (copy === undefined) {
          const fresh: Record<string, unknown> = {};
          let at = 0;
          for (const name of keys) {
            setData(fresh, name, items[at]);
            at += 1;
          }
          copy = fresh;
        }
        setData(copy as Record<string, unknown>, key, censored);
      }
    }
    ancestors.pop();
    return copy ?? value;
  }

  /** Every string found under a secret-looking key, so it can be scrubbed from messages. */
  secretValues(value: unknown): string[] {
    const found: string[] = [];
    this.#collect(jsonView(value, '', false), 0, { seen: undefined, found });
    return found;
  }

  /**
   * Adds to `found` what {@link secretValues} finds in `value`, and says whether `value` has any
   * secret-looking key at all, even one whose value is too short to collect. When neither is
   * true of any part of a response, {@link censor} would change nothing, and need not run. A
   * value whose reads throw counts as having secrets, so it is censored (as `[Unreadable]`).
   */
  collectSecrets(value: unknown, found: string[]): boolean {
    if (typeof value !== 'object' || value === null) return false;
    try {
      return this.#collect(jsonView(value, '', true), 0, {
        seen: undefined,
        found,
      });
    } catch {
      return true;
    }
  }

  #redact(value: unknown, depth: number, walk: RedactWalk): unknown {
    const { ancestors, found } = walk;
    if (typeof value !== 'object' || value === null) return value;
    if (ancestors.includes(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Truncated: too deep]';
    ancestors.push(value);
    let copy: unknown[] | Record<string, unknown>;
    if (Array.isArray(value)) {
      const items = value as readonly unknown[];
      const out: unknown[] = [];
      for (const [index, item] of items.entries()) {
        out.push(
          this.#redact(jsonView(item, String(index), false), depth + 1, walk),
        );
      }
      copy = out;
    } else {
      const record = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(record)) {
        const item = record[key];
        let censored: unknown;
        if (this.isSecretKey(key)) {
          censored = REDACTED;
          if (found !== undefined) {
            collectLeaves(item, depth + 1, { seen: undefined, found });
          }
        } else {
          censored = this.#redact(jsonView(item, key, false), depth + 1, walk);
        }
        setData(out, key, censored);
      }
      copy = out;
    }
    ancestors.pop();
    return copy;
  }

  /** Collects secret values; true when a secret-looking key was seen. */
  #collect(value: unknown, depth: number, walk: CollectWalk): boolean {
    if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) {
      return false;
    }
    // Made on the first nested object: a flat object (most arguments) cannot hold a cycle.
    if (walk.seen?.has(value) === true) return false;
    let secret = false;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (this.isSecretKey(key)) {
        secret = true;
        // Everything under a secret key is secret, including the leaves of a nested object
        // (`auth: { user, pass }`), since redact() censors that whole object.
        collectLeaves(item, depth + 1, walk);
      } else if (typeof item === 'object' && item !== null) {
        (walk.seen ??= new WeakSet()).add(value);
        if (this.#collect(jsonView(item, key, false), depth + 1, walk)) {
          secret = true;
        }
      }
    }
    return secret;
  }
}

interface CensorWalk {
  readonly secrets: readonly string[];
  readonly ancestors: object[];
}

interface RedactWalk {
  readonly ancestors: object[];
  readonly found: string[] | undefined;
}

interface CollectWalk {
  seen: WeakSet<object> | undefined;
  readonly found: string[];
}

/**
 * What JSON.stringify would write for `value` under `key`: the result of its `toJSON` when it has
 * one (a Date, or an object that shows other fields than its own). Every walk reads that, so a
 * `toJSON` cannot bring back a secret-looking key the walk did not see. A `toJSON` that throws
 * makes JSON.stringify throw too, so nothing is shown: walks that fail closed (`strict`) let it
 * throw, the others keep the value as it is.
 */
function jsonView(value: unknown, key: string, strict: boolean): unknown {
  if (typeof value !== 'object' || value === null) return value;
  try {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    return typeof toJSON === 'function'
      ? (toJSON as (key: string) => unknown).call(value, key)
      : value;
  } catch (error: unknown) {
    if (strict) throw error;
    return value;
  }
}

/** Sets a key as plain data; assigning `__proto__` would set the object's prototype instead. */
function setData(
  target: Record<string, unknown>,
  key: string,
  value: unknown,
): void {
  if (key !== '__proto__') {
    target[key] = value;
    return;
  }
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function collectLeaves(value: unknown, depth: number, walk: CollectWalk): void {
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
    walk.seen?.has(value) === true ||
    depth >= MAX_DEPTH
  ) {
    return;
  }
  (walk.seen ??= new WeakSet()).add(value);
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
