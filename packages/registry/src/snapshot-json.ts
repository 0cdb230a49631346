import { describeThrown } from '@candor/errors';
import { type SecretRedactor } from '@candor/tools';

/**
 * Censoring during the copy: a secret-looking key's value is copied (so what cannot be JSON still
 * fails the snapshot), its leaves go to `found`, and the copy holds `[REDACTED]` in its place,
 * exactly as `redactor.redact` would write it.
 */
export interface Redaction {
  readonly redactor: SecretRedactor;
  readonly found: string[];
}

/**
 * Where the walk is: the container being copied and the walk it is inside, so a cycle is found
 * by climbing the chain (one small object per level, where an array of ancestors cost its
 * backing store on every call).
 */
interface Walk {
  readonly container: object | undefined;
  readonly up: Walk | undefined;
  readonly redaction: Redaction | undefined;
  /** The container's depth: 0 for the value itself, -1 outside it. */
  readonly depth: number;
}

/**
 * Containers a snapshot keeps, counting the value itself: a deeper one is {@link TOO_DEEP}. The
 * depth `SecretRedactor` keeps, so arguments read from JSON text and given as objects agree, and
 * whatever reads a response later (`JSON.stringify`, a logger, a schema) never runs out of stack.
 */
export const SNAPSHOT_MAX_DEPTH = 32;

/**
 * About how much JSON text a snapshot keeps: each string's length, each key's length plus one,
 * one per other value. Past it, one {@link TOO_LARGE} takes the next value's place and the rest
 * is left out, so a response stays far below the longest string V8 can build (2^29 characters).
 */
export const SNAPSHOT_MAX_CHARS = 2 ** 24;

/** What a container deeper than {@link SNAPSHOT_MAX_DEPTH} becomes: the redactor's own words. */
export const TOO_DEEP = '[Truncated: too deep]';

/** What stands where a snapshot passed {@link SNAPSHOT_MAX_CHARS}; nothing after it is kept. */
export const TOO_LARGE = '[Truncated: too large]';

// The budget of the snapshot being taken. Module state rather than a field of each walk, so a
// snapshot allocates nothing for it; saved and restored around each snapshot, because a getter
// or `toJSON` may take a snapshot of its own while one is being taken.
let remaining = SNAPSHOT_MAX_CHARS;
/** Whether the snapshot being taken has placed its {@link TOO_LARGE}. */
let marked = false;

function tooLarge(): string {
  marked = true;
  return TOO_LARGE;
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
 */
export function snapshotJson(
  value: unknown,
  redaction?: Redaction,
): JsonSnapshot {
  const savedRemaining = remaining;
  const savedMarked = marked;
  remaining = SNAPSHOT_MAX_CHARS;
  marked = false;
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
    remaining = savedRemaining;
    marked = savedMarked;
  }
}

/** The walk outside any container, without censoring: shared, as nothing changes it. */
const outside: Walk = Object.freeze({
  container: undefined,
  up: undefined,
  redaction: undefined,
  depth: -1,
});

/**
 * A top-level plain object read as its fields: each own enumerable key's value read once and
 * copied as {@link snapshotJson} would copy it, in key order, without the keys JSON leaves out
 * (`undefined`, functions, symbols). For a reader that builds its own object from known fields
 * (the registry's responses, which have a few fixed shapes) instead of a copy with one key
 * stored at a time. Anything else (an array, a class instance, a value with `toJSON`) is copied
 * whole, as `snapshotJson` copies it.
 */
export type FieldsSnapshot =
  | {
      readonly ok: true;
      readonly keys: readonly string[];
      readonly values: readonly unknown[];
    }
  | JsonSnapshot;

export function snapshotFields(value: object): FieldsSnapshot {
  const savedRemaining = remaining;
  const savedMarked = marked;
  remaining = SNAPSHOT_MAX_CHARS;
  marked = false;
  try {
    const array = Array.isArray(value);
    // The same order of reads as the general walk: the prototype, then `toJSON`, then the keys.
    if (!array && !isPlain(value)) {
      return { ok: true, value: viaText(value, '', outside) };
    }
    const toJson: unknown = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJson === 'function') {
      return {
        ok: true,
        value: afterToJson(toJson.call(value, ''), '', outside),
      };
    }
    if (array) return { ok: true, value: copyContainer(value, outside) };
    const walk: Walk = {
      container: value,
      up: undefined,
      redaction: undefined,
      depth: 0,
    };
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    // Sized once: growing from empty cost a backing store of 17 slots on every call.
    const values: unknown[] = new Array<unknown>(keys.length);
    let count = 0;
    let kept: string[] | undefined;
    // Each field the wire schema names has a budget of its own, so a large `data` cannot cut
    // `stats` away; the other fields share one.
    let otherRemaining = SNAPSHOT_MAX_CHARS;
    let otherMarked = false;
    for (const name of keys) {
      const named = isResponseField(name);
      if (named) {
        remaining = SNAPSHOT_MAX_CHARS;
        marked = false;
      } else {
        remaining = otherRemaining - (name.length + 1);
        marked = otherMarked;
        if (remaining < 0) {
          // Past the shared budget: the marker in the next such field's place, then none.
          kept ??= keys.slice(0, count);
          if (!marked) {
            kept.push(name);
            values[count] = tooLarge();
            count += 1;
          }
          otherRemaining = remaining;
          otherMarked = true;
          continue;
        }
      }
      const raw = record[name];
      // A response's text is left out of the budget: `maxResultChars` cuts it later, keeping its
      // head and tail, where the marker would keep neither.
      const item =
        name === 'text' && typeof raw === 'string'
          ? raw
          : copy(raw, name, walk);
      if (!named) {
        otherRemaining = remaining;
        otherMarked = marked;
      }
      if (item === undefined) {
        kept ??= keys.slice(0, count);
        continue;
      }
      kept?.push(name);
      values[count] = item;
      count += 1;
    }
    if (count < values.length) values.length = count;
    return { ok: true, keys: kept ?? keys, values };
  } catch (error: unknown) {
    return { ok: false, reason: describeThrown(error) };
  } finally {
    remaining = savedRemaining;
    marked = savedMarked;
  }
}

/** Whether `name` is a field the wire schema names in a response. */
function isResponseField(name: string): boolean {
  switch (name) {
    case 'status':
    case 'text':
    case 'data':
    case 'stats':
    case 'context':
    case 'reason':
    case 'errorInfo':
      return true;
    default:
      return false;
  }
}

/** The plain copy {@link snapshotJson} would have made of the fields {@link snapshotFields} read. */
export function assembleFields(
  keys: readonly string[],
  values: readonly unknown[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let index = 0;
  for (const name of keys) {
    setKey(out, name, values[index]);
    index += 1;
  }
  return out;
}

function setKey(
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

function copy(value: unknown, key: string | number, walk: Walk): unknown {
  switch (typeof value) {
    case 'string':
      remaining -= value.length;
      return remaining < 0 ? tooLarge() : value;
    case 'boolean':
      return value;
    case 'number':
      // JSON has no NaN or Infinity, and writes -0 as 0.
      return Number.isFinite(value) ? value + 0 : null;
    case 'undefined':
    case 'symbol':
      return undefined;
    case 'bigint':
    case 'function':
      // Both only reach JSON through a toJSON; without one a function is left out and a BigInt
      // throws, exactly as JSON.stringify does.
      return viaToJson(value, key, walk);
    case 'object':
      if (value === null) return null;
      return copyObject(value, key, walk);
  }
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
function afterToJson(
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

function isPlain(value: object): boolean {
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

function copyContainer(value: object, outer: Walk): unknown {
  for (let at: Walk | undefined = outer; at !== undefined; at = at.up) {
    if (at.container === value) {
      throw new TypeError('Converting circular structure to JSON');
    }
  }
  const depth = outer.depth + 1;
  if (depth >= SNAPSHOT_MAX_DEPTH) return TOO_DEEP;
  const redaction = outer.redaction;
  const walk: Walk = { container: value, up: outer, redaction, depth };
  if (Array.isArray(value)) {
    const items = value as readonly unknown[];
    const length = items.length;
    const out: unknown[] = [];
    for (let index = 0; index < length; index++) {
      remaining -= 1;
      if (remaining < 0) {
        if (!marked) out.push(tooLarge());
        break;
      }
      const item = copy(items[index], index, walk);
      out.push(item === undefined ? null : item);
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const out: Record<string, unknown> = {};
  for (const name of keys) {
    remaining -= name.length + 1;
    if (remaining < 0) {
      if (!marked) setKey(out, name, tooLarge());
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
function viaText(value: object, key: string | number, walk: Walk): unknown {
  // Wrapped so a toJSON(key) sees the key it would see inside the whole value.
  const text = JSON.stringify({ [String(key)]: value });
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return Object.hasOwn(parsed, String(key))
    ? copy(parsed[String(key)], key, walk)
    : undefined;
}
