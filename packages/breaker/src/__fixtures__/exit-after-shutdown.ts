/**
 * Run in a child process by `exit-after-shutdown.test.ts` (composed for this package, not
 * recorded). It counts every live timer, drives breakers into each state, shuts them all down,
 * prints the counts as one JSON line, and must then exit by itself.
 */
import { ToolResponse } from '@candor/tools';
import { BreakerRegistry } from '../index.ts';

type Callback = (...args: unknown[]) => void;

const live = new Set<unknown>();
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realSetInterval = globalThis.setInterval;
const realClearInterval = globalThis.clearInterval;

// Globals are looked up at call time, so opossum and the ticker use these counting wrappers.
function countingSetTimeout(
  callback: Callback,
  ms?: number,
  ...args: unknown[]
): NodeJS.Timeout {
  const timer = realSetTimeout(() => {
    live.delete(timer);
    callback(...args);
  }, ms);
  live.add(timer);
  return timer;
}

function countingSetInterval(
  callback: Callback,
  ms?: number,
  ...args: unknown[]
): NodeJS.Timeout {
  const timer = realSetInterval(callback, ms, ...args);
  live.add(timer);
  return timer;
}

function countingClear(timer: NodeJS.Timeout | undefined): void {
  live.delete(timer);
  realClearTimeout(timer);
  realClearInterval(timer);
}

Object.assign(globalThis, {
  setTimeout: countingSetTimeout,
  setInterval: countingSetInterval,
  clearTimeout: countingClear,
  clearInterval: countingClear,
});

const registry = new BreakerRegistry({
  minimumCalls: 1,
  resetTimeoutMs: 600_000,
  timeoutMs: 60_000,
});
await registry
  .get('open_tool')
  .execute(() =>
    Promise.resolve(ToolResponse.error('NETWORK_ERROR', 'refused')),
  );
await registry
  .get('closed_tool')
  .execute(() => Promise.resolve(ToolResponse.success('ok')));
registry.get('forced_tool').forceOpen();
registry.get('disabled_tool', { enabled: false });
const states = registry.snapshots().map(({ name, state }) => [name, state]);
const before = live.size;

registry.shutdownAll();

process.stdout.write(
  `${JSON.stringify({ states, before, after: live.size })}\n`,
);
