/** Per-call options of {@link ToolBreaker.execute}. */
export interface ExecuteOptions {
  /** The caller's signal; the per-call controller is linked to it. */
  signal?: AbortSignal;
}

/** The caller's signal, read once and defensively: a hostile options object cannot throw here. */
export function readSignal(options: ExecuteOptions): AbortSignal | undefined {
  try {
    const signal: unknown = options.signal;
    return signal instanceof AbortSignal ? signal : undefined;
  } catch {
    return undefined;
  }
}
