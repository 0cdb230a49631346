import { BreakerRegistry } from '@candor/breaker';
import { describeThrown } from '@candor/errors';
import { guardLogger, type Logger, SecretRedactor } from '@candor/tools';
import { type Entry } from './call-types.ts';
import { checkTelemetry } from './check-telemetry.ts';
import { positiveOption } from './positive-option.ts';
import { RegistryEmitter } from './registry-events.ts';
import {
  type ApprovalGate,
  type ToolRegistryOptions,
} from './registry-types.ts';
import { ToolTelemetry } from './tool-telemetry.ts';

/**
 * What a registry's stages share: its tools and the options it was made with, read once. One
 * object per registry, so a stage takes it as an argument and a call allocates nothing for it.
 */
export interface RegistrySeam {
  readonly tools: Map<string, Entry>;
  readonly logger: Logger;
  readonly breakers: BreakerRegistry | undefined;
  readonly timeoutMs: number;
  readonly maxResultChars: number;
  readonly approve: ApprovalGate | undefined;
  readonly redactor: SecretRedactor;
  readonly events: RegistryEmitter;
  readonly telemetry: ToolTelemetry | undefined;
  /** Set by `shutdown()`: later calls answer with an error response. */
  shutDown: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESULT_CHARS = 200_000;

/** Reads a registry's options once; a TypeError or RangeError names a bad one. */
export function createSeam(options: ToolRegistryOptions): RegistrySeam {
  // Guarded once, here: a logger that throws loses its line, never a call's response.
  const guarded = guardLogger(options.logger);
  const logger = guarded.child({ component: 'tool-registry' });
  const timeoutMs = positiveOption(
    'timeoutMs',
    options.timeoutMs,
    DEFAULT_TIMEOUT_MS,
  );
  const maxResultChars = positiveOption(
    'maxResultChars',
    options.maxResultChars,
    DEFAULT_MAX_RESULT_CHARS,
  );
  const approve = options.approve;
  const redactor = new SecretRedactor(options.redact);
  const checked = checkTelemetry(options.telemetry);
  let telemetryFailed = false;
  const telemetry =
    checked === false
      ? undefined
      : ToolTelemetry.create(checked, (error) => {
          // Once per registry: a broken tracer would otherwise write a line per call.
          if (telemetryFailed) return;
          telemetryFailed = true;
          logger.warn(
            { error: describeThrown(error) },
            'telemetry failed; calls are unaffected',
          );
        });
  const breakers =
    options.breaker === false
      ? undefined
      : new BreakerRegistry({
          logger: guarded,
          telemetry:
            checked === false
              ? false
              : checked.meter === undefined
                ? {}
                : { meter: checked.meter },
          ...options.breaker,
        });
  const events = new RegistryEmitter((error, event) => {
    logger.error(
      { event, error: describeThrown(error) },
      'registry event listener threw',
    );
  });
  return {
    tools: new Map<string, Entry>(),
    logger,
    breakers,
    timeoutMs,
    maxResultChars,
    approve,
    redactor,
    events,
    telemetry,
    shutDown: false,
  };
}
