/**
 * A real OpenTelemetry SDK MeterProvider with a reader the test collects from on demand (composed
 * for this package's telemetry tests, not recorded). Nothing is exported on a timer.
 */
import { type Attributes, type Meter } from '@opentelemetry/api';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';

class ManualReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {
    // Nothing is buffered: every collect() reads the instruments directly.
  }

  protected override async onShutdown(): Promise<void> {
    // No exporter to close.
  }
}

/** One collected data point of a sum or gauge. */
export interface Point {
  readonly attributes: Attributes;
  readonly value: number;
}

/** What {@link metricHarness} gives a test. */
export interface MetricHarness {
  readonly provider: MeterProvider;
  readonly meter: Meter;
  /** Every metric collected now, with the scope that reported it. */
  readonly collect: () => Promise<
    { scope: string; version?: string; metric: MetricData }[]
  >;
  /** The data points of one sum or gauge metric collected now; `[]` when it reported none. */
  readonly points: (name: string) => Promise<Point[]>;
  readonly shutdown: () => Promise<void>;
}

/**
 * `temporality: 'delta'` reports only what was observed or added since the last collection, so a
 * gauge whose callback was removed reports nothing (cumulative would repeat its last values).
 */
export function metricHarness(
  temporality: 'cumulative' | 'delta' = 'cumulative',
): MetricHarness {
  const reader = new ManualReader({
    aggregationTemporalitySelector: () =>
      temporality === 'delta'
        ? AggregationTemporality.DELTA
        : AggregationTemporality.CUMULATIVE,
  });
  const provider = new MeterProvider({ readers: [reader] });
  const collect = async (): Promise<
    { scope: string; version?: string; metric: MetricData }[]
  > => {
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
    provider,
    meter: provider.getMeter('test'),
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
    shutdown: () => provider.shutdown(),
  };
}
