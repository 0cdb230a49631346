/** Anything that carries HTTP headers: a fetch `Headers`, or a plain record of header values. */
export type HeaderSource =
  | {
      /** The header's value, or `null` when absent (as `Headers.get` returns). */
      get(name: string): string | null;
    }
  | Readonly<Record<string, unknown>>;

function headerValue(headers: HeaderSource, name: string): string | undefined {
  try {
    if (typeof headers.get === 'function') {
      const value = (headers as { get(name: string): unknown }).get(name);
      return typeof value === 'string' ? value : undefined;
    }
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() !== name) continue;
      if (typeof value === 'string') return value;
      if (typeof value === 'number') return String(value);
      if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
    }
  } catch {
    // Header containers from user code may throw; a missing hint is the honest answer.
  }
  return undefined;
}

/**
 * How long a server asked us to wait, in milliseconds: `retry-after-ms` first, then
 * `retry-after` as seconds or as an HTTP date. Undefined when neither is present or readable.
 *
 * @example
 * ```ts
 * retryAfterMsFrom(new Headers({ 'retry-after': '2' })); // 2000
 * ```
 */
export function retryAfterMsFrom(
  headers: HeaderSource | undefined | null,
  now: number = Date.now(),
): number | undefined {
  if (
    headers === undefined ||
    headers === null ||
    typeof headers !== 'object'
  ) {
    return undefined;
  }
  const milliseconds = headerValue(headers, 'retry-after-ms');
  if (milliseconds !== undefined) {
    const value = Number(milliseconds.trim());
    if (milliseconds.trim() !== '' && Number.isFinite(value) && value >= 0) {
      return Math.ceil(value);
    }
  }
  const retryAfter = headerValue(headers, 'retry-after')?.trim();
  if (retryAfter === undefined || retryAfter === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) {
    return Math.ceil(Number(retryAfter) * 1000);
  }
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
