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
  try {
    return {
      ok: true,
      value: copy(value, '', {
        container: undefined,
        up: undefined,
        redaction,
      }),
    };
  } catch (error: unknown) {
    return { ok: false, reason: describeThrown(error) };
  }
}

/** The walk outside any container, without censoring: shared, as nothing changes it. */
const outside: Walk = Object.freeze({
  container: undefined,
  up: undefined,
  redaction: undefined,
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
  try {
    const array = Array.isArray(value);
    // The same order of reads as the general walk: the prototype, then `toJSON`, then the keys.
    if (!array && !isPlain(value)) return { ok: true, value: viaText(value) };
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
    };
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    // Sized once: growing from empty cost a backing store of 17 slots on every call.
    const values: unknown[] = new Array<unknown>(keys.length);
    let count = 0;
    let kept: string[] | undefined;
    for (const name of keys) {
      const item = copy(record[name], name, walk);
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
  if (!Array.isArray(value) && !isPlain(value)) return viaText(value);
  return copyContainer(value, walk);
}

function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function copyObject(value: object, key: string | number, walk: Walk): unknown {
  const array = Array.isArray(value);
  // Checked before any property is read, so an object left to JSON.stringify is read only there.
  if (!array && !isPlain(value)) return viaText(value, key);
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
  const redaction = outer.redaction;
  const walk: Walk = { container: value, up: outer, redaction };
  if (Array.isArray(value)) {
    const items = value as readonly unknown[];
    const length = items.length;
    const out: unknown[] = [];
    for (let index = 0; index < length; index++) {
      const item = copy(items[index], index, walk);
      out.push(item === undefined ? null : item);
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const out: Record<string, unknown> = {};
  for (const name of keys) {
    const secret = redaction?.redactor.isSecretKey(name) === true;
    // Under a secret key everything is collected whole, so nothing below is censored first.
    let item = copy(
      record[name],
      name,
      secret ? { container: value, up: outer, redaction: undefined } : walk,
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

/** JSON.stringify's own answer for a value that is not a plain object or array. */
function viaText(value: object, key: string | number = ''): unknown {
  // Wrapped so a toJSON(key) sees the key it would see inside the whole value.
  const text = JSON.stringify({ [String(key)]: value });
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return Object.hasOwn(parsed, String(key)) ? parsed[String(key)] : undefined;
}
