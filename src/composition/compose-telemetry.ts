import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TelemetryConfig, TraceSamplerName } from '../config/read-telemetry-config.ts';
import type { CallObserver } from '../observability/call-observer.ts';
import { createOtelCallObserver } from '../observability/otel-call-observer.ts';
import { createOtelMetricsObserver } from '../observability/otel-metrics-observer.ts';
import { fanOutCallObservers } from '../observability/fan-out-call-observer.ts';
import { reportExportFailures } from './report-export-failures.ts';

export interface ComposedTelemetry {
  /** Told of every finished call; spans and metrics leave in batches, off the request path. */
  observer: CallObserver;
  /** Exports what is still buffered, then stops (the gateway's close). */
  shutdown(): Promise<void>;
}

interface Signal {
  observer: CallObserver;
  shutdown(): Promise<void>;
}

/**
 * Export over OTLP/HTTP (docs/operations.md, "Traces"), or undefined when nothing is configured:
 * then no provider, exporter or observer exists and a call costs nothing more. The providers are
 * the gateway's own, never registered as the process's global ones.
 */
export function composeTelemetry(
  config: TelemetryConfig | undefined,
  options: {
    logError: (error: unknown, message: string) => void;
    /** A failed export's line (an endpoint down): never silent, never one per batch. */
    logWarn: (fields: Record<string, unknown>, message: string) => void;
  },
): ComposedTelemetry | undefined {
  if (config === undefined) return undefined;
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName });
  const signals = [
    composeTraces(config, resource, options.logWarn),
    composeMetrics(config, resource, options.logWarn),
  ].filter((signal) => signal !== undefined);
  if (signals.length === 0) return undefined;
  const observers = signals.map((signal) => signal.observer);
  const observer =
    observers.length === 1
      ? (observers[0] as CallObserver)
      : fanOutCallObservers(observers, (error) =>
          options.logError(error, 'exporting a finished call failed'),
        );
  return {
    observer,
    async shutdown() {
      for (const signal of signals) {
        try {
          await signal.shutdown();
        } catch (error) {
          // What was buffered is lost; the gateway still closes the rest.
          options.logError(error, 'exporting the last telemetry failed');
        }
      }
    },
  };
}

type Warn = (fields: Record<string, unknown>, message: string) => void;

function composeTraces(
  config: TelemetryConfig,
  resource: Resource,
  warn: Warn,
): Signal | undefined {
  if (config.traces === undefined) return undefined;
  const provider = new BasicTracerProvider({
    resource,
    sampler: buildSampler(config.traces.sampler, config.traces.ratio),
    spanProcessors: [
      new BatchSpanProcessor(
        reportExportFailures(
          new OTLPTraceExporter({ url: config.traces.url, headers: config.headers }),
          'traces',
          warn,
        ),
      ),
    ],
  });
  return {
    observer: createOtelCallObserver(provider.getTracer('switchyard')),
    shutdown: () => provider.shutdown(),
  };
}

function composeMetrics(
  config: TelemetryConfig,
  resource: Resource,
  warn: Warn,
): Signal | undefined {
  if (config.metrics === undefined) return undefined;
  const { url, intervalMs } = config.metrics;
  const provider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: reportExportFailures(
          new OTLPMetricExporter({ url, headers: config.headers }),
          'metrics',
          warn,
        ),
        exportIntervalMillis: intervalMs,
        // The reader refuses a timeout longer than its interval.
        exportTimeoutMillis: Math.min(30_000, intervalMs),
      }),
    ],
  });
  return {
    observer: createOtelMetricsObserver(provider.getMeter('switchyard')),
    shutdown: () => provider.shutdown(),
  };
}

function buildSampler(name: TraceSamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}
