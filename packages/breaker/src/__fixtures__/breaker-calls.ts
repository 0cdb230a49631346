/**
 * Helpers for the tests that drive one breaker through its states with `execute()` (composed
 * for this package's tests, not recorded).
 */
import { type ToolErrorCode } from '@candor/errors';
import { ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { type BreakerOptions } from '../breaker-options.ts';
import { bucketTicker } from '../bucket-ticker.ts';
import {
  createToolBreaker,
  type StateChange,
  type ToolBreaker,
} from '../tool-breaker.ts';

/** Makes a breaker that the file's `afterEach` shuts down. */
export type MakeBreaker = (
  options?: BreakerOptions,
  name?: string,
) => ToolBreaker;

/**
 * Fake timers around every test of the file, and a `make` whose breakers are shut down after
 * each; the ticker must then hold nothing. Call once at the file's top level.
 */
export function useBreakers(): MakeBreaker {
  const created: ToolBreaker[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    for (const breaker of created.splice(0)) breaker.shutdown();
    expect(bucketTicker.stats()).toEqual({ intervals: 0, breakers: 0 });
    vi.useRealTimers();
  });
  return (options = {}, name = 'web_fetch') => {
    const breaker = createToolBreaker(name, options);
    created.push(breaker);
    return breaker;
  };
}

/** Every transition of `breaker` from now on. */
export function changesOf(breaker: ToolBreaker): StateChange[] {
  const changes: StateChange[] = [];
  breaker.onStateChange((change) => changes.push(change));
  return changes;
}

/** A promise and the function that resolves it. */
export function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
} {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

export const ok = (): ToolResponse => ToolResponse.success('ok');

export const failure = (code: ToolErrorCode = 'NETWORK_ERROR'): ToolResponse =>
  ToolResponse.error(code, `failed with ${code}`);

/** One call through `execute()` of a tool that answers `response`. */
export async function callWith(
  breaker: ToolBreaker,
  response: ToolResponse,
): Promise<ToolResponse> {
  return breaker.execute(() => Promise.resolve(response));
}

/** `times` calls that fail with NETWORK_ERROR, one after another. */
export async function failTimes(
  breaker: ToolBreaker,
  times: number,
): Promise<void> {
  for (let i = 0; i < times; i++) await callWith(breaker, failure());
}

export function codeOf(response: ToolResponse): ToolErrorCode | undefined {
  return response.status === 'error' ? response.errorInfo.code : undefined;
}

export function retryAfterOf(response: ToolResponse): number | undefined {
  return response.status === 'error'
    ? response.errorInfo.retryAfterMs
    : undefined;
}

/** Opens after two failures, half-open 30 s later; `execute()` ends a call at 1.1 s. */
export const fast: BreakerOptions = {
  minimumCalls: 2,
  resetTimeoutMs: 30_000,
  timeoutMs: 1_000,
  graceMs: 100,
};
