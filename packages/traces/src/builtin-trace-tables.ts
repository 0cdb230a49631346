import { loadShippedTraceTable } from './load-trace-table.ts';
import type { TraceTable } from './parse-trace-table.ts';

/**
 * The harnesses Candor ships tables for, in auto-detection order: cursor before claude-code,
 * whose init line looks like cursor's with `tools` added; amp before claude-code, whose lines
 * amp copies in all but the `T-` thread id in `session_id`.
 */
export const builtinHarnesses = [
  'cursor',
  'amp',
  'claude-code',
  'codex',
  'gemini',
  'opencode',
  'copilot',
  'goose',
  'kimi',
] as const;

/** One of {@link builtinHarnesses}. */
export type BuiltinHarness = (typeof builtinHarnesses)[number];

let cache: readonly TraceTable[] | undefined;

/**
 * The shipped tables, read once from the package's `tables/` folder (validated by the package's
 * tests rather than in each process: see loadShippedTraceTable). The path is relative to
 * this module, which sits one level below the package root in both `src/` and `dist/`.
 */
export function builtinTraceTables(): readonly TraceTable[] {
  cache ??= Object.freeze(
    builtinHarnesses.map((name) =>
      loadShippedTraceTable(new URL(`../tables/${name}.json`, import.meta.url)),
    ),
  );
  return cache;
}
