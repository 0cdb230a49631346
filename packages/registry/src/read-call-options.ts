import { type ToolProgress } from '@candor/tools';
import { type CallOptions } from './registry-types.ts';

/** {@link CallOptions} as read once: only values of the right type survive. */
export interface GivenOptions {
  readonly callId: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number | undefined;
  readonly onProgress: ((progress: ToolProgress) => void) | undefined;
  readonly approve: CallOptions['approve'];
}

const noOptions: GivenOptions = {
  callId: undefined,
  signal: undefined,
  timeoutMs: undefined,
  onProgress: undefined,
  approve: undefined,
};

/**
 * The first stage: a call's options, read once and defensively, so hostile or null options
 * cannot throw past it. Anything of the wrong type is left out.
 */
export function readCallOptions(options: unknown): GivenOptions {
  if (typeof options !== 'object' || options === null) return noOptions;
  try {
    const { callId, signal, timeoutMs, onProgress, approve } =
      options as Record<string, unknown>;
    return {
      callId: typeof callId === 'string' && callId !== '' ? callId : undefined,
      signal: signal instanceof AbortSignal ? signal : undefined,
      timeoutMs: typeof timeoutMs === 'number' ? timeoutMs : undefined,
      onProgress:
        typeof onProgress === 'function'
          ? (onProgress as (progress: ToolProgress) => void)
          : undefined,
      approve:
        typeof approve === 'function'
          ? (approve as CallOptions['approve'])
          : undefined,
    };
  } catch {
    return noOptions;
  }
}

/** The name a call asked for, as a string even when it was not one. */
export function readToolName(name: unknown): string {
  if (typeof name === 'string') return name;
  try {
    return typeof name === 'symbol'
      ? name.toString()
      : `(a ${typeof name}, not a tool name)`;
  } catch {
    return '(an unreadable tool name)';
  }
}
