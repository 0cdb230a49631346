import { type Logger } from '@candor/tools';
import { type McpImportEvents } from './import-mcp-options.ts';

type Listeners = {
  [K in keyof McpImportEvents]: Set<(payload: McpImportEvents[K]) => void>;
};

/** The listeners of an import's events; a listener that throws is logged, never rethrown. */
export class ImportEvents {
  readonly #logger: Logger;
  readonly #listeners: Listeners = {
    connected: new Set(),
    disconnected: new Set(),
    refreshed: new Set(),
  };

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  on<K extends keyof McpImportEvents>(
    event: K,
    listener: (payload: McpImportEvents[K]) => void,
  ): () => void {
    const set = this.#listeners[event] as Set<
      (payload: McpImportEvents[K]) => void
    >;
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  emit<K extends keyof McpImportEvents>(
    event: K,
    payload: McpImportEvents[K],
  ): void {
    for (const listener of this.#listeners[event] as Set<
      (payload: McpImportEvents[K]) => void
    >) {
      try {
        listener(payload);
      } catch (error: unknown) {
        this.#logger.error(
          {
            event,
            error: error instanceof Error ? error.message : String(error),
          },
          'listener threw',
        );
      }
    }
  }
}
