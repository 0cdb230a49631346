import { type ToolErrorCode } from '@candor/errors';
import { type ToolOutcome, type ToolResponse } from '@candor/tools';

/** Where in the pipeline a call ended. */
export type CallStage = 'lookup' | 'arguments' | 'approval' | 'breaker' | 'run';

/** Emitted when a call enters the registry. */
export interface ToolStartEvent {
  readonly toolName: string;
  readonly callId: string;
  /** Arguments with secret-looking keys censored. */
  readonly params: unknown;
}

/** Emitted exactly once per call, whatever happened. */
export interface ToolEndEvent {
  readonly toolName: string;
  readonly callId: string;
  readonly outcome: ToolOutcome;
  readonly code?: ToolErrorCode;
  readonly durationMs: number;
  /** The length of the result text the model reads; never of the arguments. */
  readonly resultLength: number;
  readonly stage: CallStage;
  readonly response: ToolResponse;
}

/** Emitted after `register()` added a tool or replaced one of the same name. */
export interface ToolRegisteredEvent {
  readonly toolName: string;
  /** True when a tool of the same name was replaced (`{ replace: true }`). */
  readonly replaced: boolean;
}

/** The registry's events. */
export interface RegistryEvents {
  'tool:start': ToolStartEvent;
  'tool:end': ToolEndEvent;
  'tool:registered': ToolRegisteredEvent;
}

type Listener<T> = (event: T) => void;

/** A tiny typed emitter whose listeners can never break the call that emits. */
export class RegistryEmitter {
  readonly #listeners: {
    [K in keyof RegistryEvents]: Set<Listener<RegistryEvents[K]>>;
  } = {
    'tool:start': new Set(),
    'tool:end': new Set(),
    'tool:registered': new Set(),
  };
  readonly #onListenerError: (
    error: unknown,
    event: keyof RegistryEvents,
  ) => void;

  constructor(
    onListenerError: (error: unknown, event: keyof RegistryEvents) => void,
  ) {
    this.#onListenerError = onListenerError;
  }

  on<K extends keyof RegistryEvents>(
    event: K,
    listener: Listener<RegistryEvents[K]>,
  ): () => void {
    const listeners = this.#listeners[event] as Set<
      Listener<RegistryEvents[K]>
    >;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  /** Whether anyone listens, so a call builds an event only when it will be read. */
  has(event: keyof RegistryEvents): boolean {
    return this.#listeners[event].size > 0;
  }

  emit<K extends keyof RegistryEvents>(
    event: K,
    payload: RegistryEvents[K],
  ): void {
    const listeners = this.#listeners[event] as Set<
      Listener<RegistryEvents[K]>
    >;
    for (const listener of listeners) {
      try {
        listener(payload);
      } catch (error: unknown) {
        this.#onListenerError(error, event);
      }
    }
  }

  clear(): void {
    this.#listeners['tool:start'].clear();
    this.#listeners['tool:end'].clear();
    this.#listeners['tool:registered'].clear();
  }
}
