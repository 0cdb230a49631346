import { styleText } from 'node:util';
import type { ObservedOutcome } from '@candor/tools';

/**
 * Whether to colour output on `stream`, as Node itself decides: on a TTY, `hasColors()` (which
 * reads `FORCE_COLOR`, `NO_COLOR`, `NODE_DISABLE_COLORS` and `TERM`); elsewhere (a pipe, a file)
 * only when `FORCE_COLOR` asks for it, where `0` and `false` mean no, as in Node's getColorDepth.
 */
export function useColour(
  stream: object,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (
    'isTTY' in stream &&
    stream.isTTY === true &&
    'hasColors' in stream &&
    typeof stream.hasColors === 'function'
  )
    return Boolean((stream.hasColors as () => unknown).call(stream));
  const forced = env['FORCE_COLOR'];
  return forced !== undefined && forced !== '0' && forced !== 'false';
}

const outcomeStyle = {
  success: 'green',
  partial: 'yellow',
  error: 'red',
  denied: 'magenta',
  unknown: 'gray',
} as const satisfies Record<ObservedOutcome, Parameters<typeof styleText>[0]>;

/** `text` in the outcome's colour when `enabled`; the mark and word beside it carry the meaning. */
export function paintOutcome(
  text: string,
  outcome: ObservedOutcome,
  enabled: boolean,
): string {
  // The caller has decided (useColour); styleText must not second-guess it from process.stdout.
  return enabled
    ? styleText(outcomeStyle[outcome], text, { validateStream: false })
    : text;
}
