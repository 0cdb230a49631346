/**
 * A real OpenTelemetry SDK for the registry's telemetry tests (composed for this package, not
 * recorded): a BasicTracerProvider exporting finished spans to memory, and a MeterProvider with a
 * reader the test collects from on demand. Nothing is exported on a timer.
 */
import { type Attributes, type Meter, type Tracer } from '@opentelemetry/api';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

class ManualReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {
    // Nothing is buffered: every collect() reads the instruments directly.
  }

  protected override async onShutdown(): Promise<void> {
    // No exporter to close.
  }
}

/** One collected metric, with the scope that reported it. */
export interface Collected {
  readonly scope: string;
  readonly version?: string;
  readonly metric: MetricData;
}

/** One collected data point of a sum or gauge. */
export interface Point {
  readonly attributes: Attributes;
  readonly value: number;
}

/** What {@link otelHarness} gives a test. */
export interface OtelHarness {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  readonly tracer: Tracer;
  readonly meter: Meter;
  /** Spans ended so far, in the order they ended. */
  readonly spans: () => ReadableSpan[];
  /** Every metric collected now. */
  readonly collect: () => Promise<Collected[]>;
  /** The data points of one sum or gauge metric collected now; `[]` when it reported none. */
  readonly points: (name: string) => Promise<Point[]>;
  readonly shutdown: () => Promise<void>;
}

/**
 * `temporality: 'delta'` reports only what was observed or recorded since the last collection,
 * so a gauge whose callback was removed reports nothing.
 */
export function otelHarness(
  temporality: 'cumulative' | 'delta' = 'cumulative',
): OtelHarness {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const reader = new ManualReader({
    aggregationTemporalitySelector: () =>
      temporality === 'delta'
        ? AggregationTemporality.DELTA
        : AggregationTemporality.CUMULATIVE,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const collect = async (): Promise<Collected[]> => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw new AggregateError(errors, 'collect failed');
    return resourceMetrics.scopeMetrics.flatMap(({ scope, metrics }) =>
      metrics.map((metric) => ({
        scope: scope.name,
        ...(scope.version === undefined ? {} : { version: scope.version }),
        metric,
      })),
    );
  };
  return {
    tracerProvider,
    meterProvider,
    tracer: tracerProvider.getTracer('test'),
    meter: meterProvider.getMeter('test'),
    spans: () => exporter.getFinishedSpans(),
    collect,
    points: async (name) => {
      const found = (await collect()).filter(
        ({ metric }) => metric.descriptor.name === name,
      );
      return found.flatMap(({ metric }) =>
        metric.dataPoints.map((point) => {
          if (typeof point.value !== 'number') {
            throw new TypeError(`${name} is not a sum or a gauge`);
          }
          return { attributes: point.attributes, value: point.value };
        }),
      );
    },
    shutdown: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
