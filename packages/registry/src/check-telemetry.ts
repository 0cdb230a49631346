import { describeThrown } from '@candor/errors';
import { type Meter, type Tracer } from '@opentelemetry/api';
import { type ToolTelemetryOptions } from './tool-telemetry.ts';

const tracerMethods = ['startSpan'];
const meterMethods = [
  'createHistogram',
  'createCounter',
  'createObservableGauge',
];

function missingMethods(
  value: unknown,
  methods: readonly string[],
  option: string,
): string[] {
  try {
    return typeof value === 'object' && value !== null
      ? methods.filter(
          (method) =>
            typeof (value as Record<string, unknown>)[method] !== 'function',
        )
      : [...methods];
  } catch (error: unknown) {
    // A getter or Proxy trap that throws: said as a bad option, not as its own raw error.
    throw new TypeError(
      `ToolRegistry: ${option} could not be read: ${describeThrown(error)}`,
      { cause: error },
    );
  }
}

/**
 * The registry's `telemetry` option, checked once: `false`, or the tracer and meter it names,
 * each read once and checked for the methods the registry calls. A TypeError says what is wrong.
 */
export function checkTelemetry(
  value: ToolTelemetryOptions | false | undefined,
): ToolTelemetryOptions | false {
  // Typed callers are not the only callers: JavaScript and config files reach here too.
  const given: unknown = value;
  if (given === undefined) return {};
  if (given === false) return false;
  if (typeof given !== 'object' || given === null) {
    throw new TypeError(
      `ToolRegistry: telemetry must be false or an object like { tracer, meter }, got ${given === null ? 'null' : typeof given}`,
    );
  }
  let tracer: unknown;
  let meter: unknown;
  try {
    ({ tracer, meter } = given as { tracer?: unknown; meter?: unknown });
  } catch (error: unknown) {
    throw new TypeError(
      `ToolRegistry: telemetry could not be read: ${describeThrown(error)}`,
      { cause: error },
    );
  }
  const tracerMissing =
    tracer === undefined
      ? []
      : missingMethods(tracer, tracerMethods, 'telemetry.tracer');
  if (tracerMissing.length > 0) {
    throw new TypeError(
      `ToolRegistry: telemetry.tracer must be an OpenTelemetry Tracer; it lacks ${tracerMissing.join(', ')}`,
    );
  }
  const meterMissing =
    meter === undefined
      ? []
      : missingMethods(meter, meterMethods, 'telemetry.meter');
  if (meterMissing.length > 0) {
    throw new TypeError(
      `ToolRegistry: telemetry.meter must be an OpenTelemetry Meter; it lacks ${meterMissing.join(', ')}`,
    );
  }
  // The values checked, not `given`: a getter read again could answer differently, or throw.
  return {
    ...(tracer === undefined ? {} : { tracer: tracer as Tracer }),
    ...(meter === undefined ? {} : { meter: meter as Meter }),
  };
}
