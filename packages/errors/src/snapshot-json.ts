import { describeThrown } from './describe-thrown.ts';
import {
  budget,
  SNAPSHOT_MAX_CHARS,
  SNAPSHOT_MAX_DEPTH,
  TOO_DEEP,
  tooLarge,
} from './snapshot-budget.ts';

/**
 * What {@link Redaction} needs of a redactor: the slice of `SecretRedactor` (`@candor/tools`) a
 * snapshot calls, named here so this package, below tools, does not import it.
 */
export interface SnapshotRedactor {
  /** Whether a key's value is a secret, to be censored. */
  isSecretKey(key: string): boolean;
  /** The value censored, its secret leaves pushed to `found`. */
  redact(value: unknown, found?: string[]): unknown;
}

/**
 * Censoring during the copy: a secret-looking key's value is copied (so what cannot be JSON still
 * fails the snapshot), its leaves go to `found`, and the copy holds `[REDACTED]` in its place,
 * exactly as `redactor.redact` would write it.
 */
export interface Redaction {
  /** Decides which keys are secret and censors their values (a `SecretRedactor`). */
  readonly redactor: SnapshotRedactor;
  /** Where the secret values found under those keys are collected. */
  readonly found: string[];
}

/**
 * Where the walk is: the container being copied and the walk it is inside, so a cycle is found
 * by climbing the chain (one small object per level, where an array of ancestors cost its
 * backing store on every call).
 */
export interface Walk {
  readonly container: object | undefined;
  readonly up: Walk | undefined;
  readonly redaction: Redaction | undefined;
  /** The container's depth: 0 for the value itself, -1 outside it. */
  readonly depth: number;
}

/** A value read once into plain JSON, or why it cannot be. */
export type JsonSnapshot =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads `value` once into a plain JSON copy: what `JSON.parse(JSON.stringify(value))` gives,
 * without the text in between. Each getter and Proxy trap runs once, and the copy cannot change
 * afterwards. Cycles, BigInt and throwing getters or `toJSON` give a reason instead.
 * `undefined` (and what `toJSON` turns into it) snapshots as `undefined`.
 *
 * Plain objects and arrays, the shapes tools return, are copied by a walk that follows
 * `JSON.stringify`'s rules (`toJSON`, own enumerable keys, non-finite numbers as `null`, holes and
 * functions in arrays as `null`); on a shared runtime the round trip through text cost about
 * four times as much. Anything else (a `Date`, a `Map`, a class instance, a boxed primitive) is
 * handed to `JSON.stringify` itself, so its rules are never re-implemented here.
 *
 * The copy is bounded (`snapshot-budget.ts`): 32 levels, then `'[Truncated: too deep]'` for each
 * deeper container; about 2^24 characters, then one `'[Truncated: too large]'` and nothing more.
 * So whatever reads the copy later, `JSON.stringify` included, cannot run out of stack or of
 * string length.
 */
export function snapshotJson(
  value: unknown,
  redaction?: Redaction,
): JsonSnapshot {
  const savedRemaining = budget.remaining;
  const savedMarked = budget.marked;
  budget.remaining = SNAPSHOT_MAX_CHARS;
  budget.marked = false;
  try {
    return {
      ok: true,
      value: copy(
        value,
        '',
        redaction === undefined
          ? outside
          : { container: undefined, up: undefined, redaction, depth: -1 },
      ),
    };
  } catch (error: unknown) {
    return { ok: false, reason: describeThrown(error) };
  } finally {
    budget.remaining = savedRemaining;
    budget.marked = savedMarked;
  }
}

/** The walk outside any container, without censoring: shared, as nothing changes it. */
export const outside: Walk = Object.freeze({
  container: undefined,
  up: undefined,
  redaction: undefined,
  depth: -1,
});

export function setKey(
  out: Record<string, unknown>,
  name: string,
  item: unknown,
): void {
  if (name === '__proto__') {
    // JSON.parse makes `__proto__` an own key; assigning it would set the prototype.
    Object.defineProperty(out, name, {
      value: item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    out[name] = item;
  }
}

export function copy(
  value: unknown,
  key: string | number,
  walk: Walk,
): unknown {
  switch (typeof value) {
    case 'string':
      // Its quotes too: an array of empty strings is three characters an item.
      budget.remaining -= value.length + 2;
      return budget.remaining < 0 ? tooLarge() : value;
    case 'boolean':
      budget.remaining -= value ? 4 : 5;
      return budget.remaining < 0 ? tooLarge() : value;
    case 'number': {
      // JSON has no NaN or Infinity, and writes -0 as 0. Counted as written: at one a number,
      // 2^24 doubles of 24 characters made text near V8's longest string, and a response with
      // two such fields could not be stringified.
      const kept = Number.isFinite(value) ? value + 0 : null;
      budget.remaining -= kept === null ? 4 : numberChars(kept);
      return budget.remaining < 0 ? tooLarge() : kept;
    }
    case 'undefined':
    case 'symbol':
      return undefined;
    case 'bigint':
    case 'function':
      // Both only reach JSON through a toJSON; without one a function is left out and a BigInt
      // throws, exactly as JSON.stringify does.
      return viaToJson(value, key, walk);
    case 'object':
      if (value === null) {
        budget.remaining -= 4;
        return budget.remaining < 0 ? tooLarge() : null;
      }
      return copyObject(value, key, walk);
  }
}

/**
 * The characters JSON writes for a finite number: exact for integers below a billion, else 24,
 * the longest a double can take (`-1.7976931348623157e+308`).
 */
function numberChars(value: number): number {
  if (!Number.isInteger(value) || value <= -1e9 || value >= 1e9) return 24;
  let chars = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) {
    chars += 1;
  }
  return chars;
}

function viaToJson(
  value: bigint | object,
  key: string | number,
  walk: Walk,
): unknown {
  const toJson: unknown = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson !== 'function') {
    if (typeof value === 'bigint') {
      throw new TypeError('Do not know how to serialize a BigInt');
    }
    return undefined;
  }
  return afterToJson(toJson.call(value, String(key)), key, walk);
}

/** What `toJSON` returned: serialised as it is, its own `toJSON` not called again. */
export function afterToJson(
  value: unknown,
  key: string | number,
  walk: Walk,
): unknown {
  if (typeof value === 'bigint') {
    throw new TypeError('Do not know how to serialize a BigInt');
  }
  if (typeof value === 'function') return undefined;
  if (typeof value !== 'object' || value === null) {
    return copy(value, key, walk);
  }
  if (!Array.isArray(value) && !isPlain(value))
    return viaText(value, key, walk);
  return copyContainer(value, walk);
}

export function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function copyObject(value: object, key: string | number, walk: Walk): unknown {
  const array = Array.isArray(value);
  // Checked before any property is read, so an object left to JSON.stringify is read only there.
  if (!array && !isPlain(value)) return viaText(value, key, walk);
  const toJson: unknown = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') {
    return afterToJson(toJson.call(value, String(key)), key, walk);
  }
  return copyContainer(value, walk);
}

export function copyContainer(value: object, outer: Walk): unknown {
  for (let at: Walk | undefined = outer; at !== undefined; at = at.up) {
    if (at.container === value) {
      throw new TypeError('Converting circular structure to JSON');
    }
  }
  const depth = outer.depth + 1;
  // The marker and the brackets are text too: counted, so a wide array of deep or empty
  // containers is bounded like any other.
  if (depth >= SNAPSHOT_MAX_DEPTH) {
    budget.remaining -= TOO_DEEP.length + 2;
    return budget.remaining < 0 ? tooLarge() : TOO_DEEP;
  }
  budget.remaining -= 2;
  const redaction = outer.redaction;
  const walk: Walk = { container: value, up: outer, redaction, depth };
  if (Array.isArray(value)) {
    const items = value as readonly unknown[];
    const length = items.length;
    const out: unknown[] = [];
    for (let index = 0; index < length; index++) {
      budget.remaining -= 1;
      if (budget.remaining < 0) {
        if (!budget.marked) out.push(tooLarge());
        break;
      }
      const item = copy(items[index], index, walk);
      if (item === undefined) budget.remaining -= 4;
      out.push(item === undefined ? null : item);
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const out: Record<string, unknown> = {};
  for (const name of keys) {
    // Its quotes, colon and comma too.
    budget.remaining -= name.length + 4;
    if (budget.remaining < 0) {
      if (!budget.marked) setKey(out, name, tooLarge());
      break;
    }
    const secret = redaction?.redactor.isSecretKey(name) === true;
    // Under a secret key everything is collected whole, so nothing below is censored first.
    let item = copy(
      record[name],
      name,
      secret
        ? { container: value, up: outer, redaction: undefined, depth }
        : walk,
    );
    if (item === undefined) continue;
    if (secret) {
      const censored = redaction.redactor.redact(
        { [name]: item },
        redaction.found,
      ) as Record<string, unknown>;
      item = censored[name];
    }
    setKey(out, name, item);
  }
  return out;
}

/**
 * JSON.stringify's own answer for a value that is not a plain object or array, copied again as
 * plain data so it keeps the snapshot's bounds (and its censoring) too.
 */
export function viaText(
  value: object,
  key: string | number,
  walk: Walk,
): unknown {
  // Wrapped so a toJSON(key) sees the key it would see inside the whole value.
  const text = JSON.stringify({ [String(key)]: value });
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return Object.hasOwn(parsed, String(key))
    ? copy(parsed[String(key)], key, walk)
    : undefined;
}
