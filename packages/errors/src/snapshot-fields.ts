import { describeThrown } from './describe-thrown.ts';
import { budget, SNAPSHOT_MAX_CHARS, tooLarge } from './snapshot-budget.ts';
import {
  afterToJson,
  copy,
  copyContainer,
  isPlain,
  type JsonSnapshot,
  outside,
  setKey,
  viaText,
  type Walk,
} from './snapshot-json.ts';

/**
 * A top-level plain object read as its fields: each own enumerable key's value read once and
 * copied as {@link snapshotJson} would copy it, in key order, without the keys JSON leaves out
 * (`undefined`, functions, symbols). For a reader that builds its own object from known fields
 * (the registry's responses, which have a few fixed shapes) instead of a copy with one key
 * stored at a time. Anything else (an array, a class instance, a value with `toJSON`) is copied
 * whole, as `snapshotJson` copies it.
 *
 * Bounded as `snapshotJson` is, but each field {@link FieldBounds.ownBudget} names gets a budget
 * of its own (a large `data` cannot cut `stats` away), the other fields share one, and a string
 * in the {@link FieldBounds.unbudgeted} field is left out of the budget, for the caller to cut.
 */
export type FieldsSnapshot =
  | {
      readonly ok: true;
      readonly keys: readonly string[];
      readonly values: readonly unknown[];
    }
  | JsonSnapshot;

/** How {@link snapshotFields} shares its budget between the fields of the object it reads. */
export interface FieldBounds {
  /** Whether the field `name` gets a budget of its own; the fields it does not name share one. */
  readonly ownBudget: (name: string) => boolean;
  /** A field whose string value is kept whole, outside the budget: the caller bounds it. */
  readonly unbudgeted?: string;
}

/**
 * Reads an object once, field by field, within the bounds: see {@link FieldsSnapshot}.
 *
 * @example
 * ```ts
 * const bounds = { ownBudget: (name: string) => name === 'data', unbudgeted: 'text' };
 * const snapshot = snapshotFields({ text: 'hi', data: [1] }, bounds);
 * // { ok: true, keys: ['text', 'data'], values: ['hi', [1]] }
 * ```
 */
export function snapshotFields(
  value: object,
  bounds: FieldBounds,
): FieldsSnapshot {
  const savedRemaining = budget.remaining;
  const savedMarked = budget.marked;
  budget.remaining = SNAPSHOT_MAX_CHARS;
  budget.marked = false;
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
    // Each field the bounds name has a budget of its own, so a large `data` cannot cut `stats`
    // away; the other fields share one.
    const ownBudget = bounds.ownBudget;
    const unbudgeted = bounds.unbudgeted;
    let otherRemaining = SNAPSHOT_MAX_CHARS;
    let otherMarked = false;
    for (const name of keys) {
      const named = ownBudget(name);
      if (named) {
        budget.remaining = SNAPSHOT_MAX_CHARS;
        budget.marked = false;
      } else {
        budget.remaining = otherRemaining - (name.length + 4);
        budget.marked = otherMarked;
        if (budget.remaining < 0) {
          // Past the shared budget: the marker in the next such field's place, then none.
          kept ??= keys.slice(0, count);
          if (!budget.marked) {
            kept.push(name);
            values[count] = tooLarge();
            count += 1;
          }
          otherRemaining = budget.remaining;
          otherMarked = true;
          continue;
        }
      }
      const raw = record[name];
      // Left out of the budget: the caller cuts it later (the registry's `maxResultChars` keeps
      // its head and tail), where the marker would keep neither.
      const item =
        name === unbudgeted && typeof raw === 'string'
          ? raw
          : copy(raw, name, walk);
      if (!named) {
        otherRemaining = budget.remaining;
        otherMarked = budget.marked;
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
    budget.remaining = savedRemaining;
    budget.marked = savedMarked;
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
