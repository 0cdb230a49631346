import { type CallSettings } from './chat-model.ts';

const KEYS: ReadonlySet<string> = new Set([
  'temperature',
  'topP',
  'maxOutputTokens',
  'stopSequences',
  'seed',
  'providerOptions',
]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  return typeof value === 'string'
    ? JSON.stringify(value)
    : typeof value === 'number'
      ? String(value)
      : typeof value;
}

/**
 * Body fields each wire builds itself, which `providerOptions` may not replace: `stream: false`
 * would break the parser, another `model` would make telemetry name the wrong one, and another
 * conversation or tool list would send calls the registry never saw.
 */
const RESERVED: Readonly<Record<string, readonly string[]>> = {
  anthropic: ['model', 'messages', 'system', 'tools', 'stream'],
  google: ['contents', 'systemInstruction', 'tools'],
  openai: ['model', 'input', 'instructions', 'tools', 'stream'],
  openaiCompatible: ['model', 'messages', 'tools', 'stream'],
};

/**
 * A deep copy of JSON data, read once (a getter or Proxy is not read again at request time);
 * what JSON cannot carry (a function, a BigInt, a symbol, a non-finite number, a cycle, a class
 * instance) is refused here, naming its path, instead of failing or vanishing in the request.
 */
function jsonSnapshot(
  value: Record<string, unknown>,
  path: string,
  where: string,
): Record<string, unknown> {
  const seen = new Set<object>();
  const copy = (item: unknown, at: string): unknown => {
    if (item === null || typeof item === 'string' || typeof item === 'boolean')
      return item;
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) fail(where, `${at} must be a finite number`);
      return item;
    }
    const isArray = Array.isArray(item);
    if (!isArray && !isPlainObject(item))
      fail(where, `${at} must be JSON (got ${describe(item)})`);
    if (seen.has(item)) fail(where, `${at} refers back to itself`);
    seen.add(item);
    const out = isArray
      ? item.map((entry, i) => copy(entry, `${at}[${i}]`))
      : Object.fromEntries(
          Object.entries(item)
            // An unset field is left out, as JSON.stringify does.
            .filter(([, entry]) => entry !== undefined)
            .map(([key, entry]) => [key, copy(entry, `${at}.${key}`)]),
        );
    seen.delete(item);
    return out;
  };
  return copy(value, path) as Record<string, unknown>;
}

function fail(where: string, message: string): never {
  throw new TypeError(`${where}: ${message}`);
}

/**
 * The settings, checked and copied once (snapshot-then-trust: a getter is read one time):
 * types and the ranges that hold for every vendor. A model's own rules are left to its vendor.
 * Unknown keys are refused, so a misspelt `maxTokens` is not silently ignored.
 */
export function checkCallSettings(
  settings: unknown,
  where: string,
): CallSettings {
  if (settings === undefined) return {};
  if (!isPlainObject(settings)) fail(where, 'settings must be a plain object');
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(settings)) {
    if (!KEYS.has(key))
      fail(
        where,
        `unknown setting "${key}" (known: ${[...KEYS].join(', ')}; vendor fields go in providerOptions)`,
      );
    const value = settings[key];
    if (value !== undefined) copy[key] = value;
  }
  const { temperature, topP, maxOutputTokens, stopSequences, seed } = copy;
  if (
    temperature !== undefined &&
    (typeof temperature !== 'number' ||
      !Number.isFinite(temperature) ||
      temperature < 0)
  )
    throw new RangeError(
      `${where}: temperature must be a finite number of at least 0, got ${describe(temperature)}`,
    );
  if (
    topP !== undefined &&
    (typeof topP !== 'number' || !(topP > 0 && topP <= 1))
  )
    throw new RangeError(
      `${where}: topP must be a number greater than 0 and at most 1, got ${describe(topP)}`,
    );
  if (
    maxOutputTokens !== undefined &&
    (typeof maxOutputTokens !== 'number' ||
      !Number.isSafeInteger(maxOutputTokens) ||
      maxOutputTokens < 1)
  )
    throw new RangeError(
      `${where}: maxOutputTokens must be a positive integer, got ${describe(maxOutputTokens)}`,
    );
  if (
    seed !== undefined &&
    (typeof seed !== 'number' || !Number.isSafeInteger(seed))
  )
    throw new RangeError(
      `${where}: seed must be an integer, got ${describe(seed)}`,
    );
  if (stopSequences !== undefined) {
    if (
      !Array.isArray(stopSequences) ||
      !stopSequences.every(
        (stop: unknown) => typeof stop === 'string' && stop !== '',
      )
    )
      fail(where, 'stopSequences must be an array of non-empty strings');
    copy['stopSequences'] = [...(stopSequences as string[])];
  }
  const providerOptions = copy['providerOptions'];
  if (providerOptions !== undefined) {
    if (!isPlainObject(providerOptions))
      fail(
        where,
        'providerOptions must be a plain object keyed by wire (anthropic, google, openai, openaiCompatible)',
      );
    const options: Record<string, Record<string, unknown>> = {};
    for (const [wire, value] of Object.entries(providerOptions)) {
      if (!isPlainObject(value))
        fail(where, `providerOptions.${wire} must be a plain object`);
      for (const field of RESERVED[wire] ?? [])
        if (Object.hasOwn(value, field))
          fail(
            where,
            `providerOptions.${wire}.${field} is set by Candor (the model, the conversation, the tools and streaming are the wire's) and cannot be overridden`,
          );
      options[wire] = jsonSnapshot(value, `providerOptions.${wire}`, where);
    }
    copy['providerOptions'] = options;
  }
  return copy;
}

/**
 * The model's settings with the run's laid over them, key by key; `providerOptions` merged per
 * wire, the run's fields winning.
 */
export function mergeCallSettings(
  model: CallSettings,
  run: CallSettings | undefined,
): CallSettings {
  if (run === undefined) return model;
  const merged: Record<string, unknown> = { ...model, ...run };
  if (
    model.providerOptions !== undefined &&
    run.providerOptions !== undefined
  ) {
    const options: Record<string, Readonly<Record<string, unknown>>> = {
      ...model.providerOptions,
    };
    for (const [wire, value] of Object.entries(run.providerOptions))
      options[wire] = { ...options[wire], ...value };
    merged['providerOptions'] = options;
  }
  return merged;
}
