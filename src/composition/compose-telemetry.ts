import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
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
import type { TelemetryConfig } from '../config/read-telemetry-config.ts';
import type { CallObserver } from '../observability/call-observer.ts';
import { createOtelCallObserver } from '../observability/otel-call-observer.ts';
import { observeAll } from '../observability/observe-all.ts';

export interface ComposedTelemetry {
  /** Told of every finished call; spans leave in batches, off the request path. */
  observer: CallObserver;
  /** Exports what is still buffered, then stops (the gateway's close). */
  shutdown(): Promise<void>;
}

/**
 * Export over OTLP/HTTP (docs/operations.md, "Traces"), or undefined when nothing is configured:
 * then no provider, exporter or observer exists and a call costs nothing more. The providers are
 * the gateway's own, never registered as the process's global ones.
 */
export function composeTelemetry(
  config: TelemetryConfig | undefined,
  options: { logError: (error: unknown, message: string) => void },
): ComposedTelemetry | undefined {
  if (config?.traces === undefined) return undefined;
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName });
  const tracerProvider = new BasicTracerProvider({
    resource,
    sampler: buildSampler(config.traces.sampler, config.traces.ratio),
    spanProcessors: [
      new BatchSpanProcessor(
        new OTLPTraceExporter({ url: config.traces.url, headers: config.headers }),
      ),
    ],
  });
  const observer = observeAll(createOtelCallObserver(tracerProvider.getTracer('switchyard')));
  return {
    observer: observer as CallObserver,
    async shutdown() {
      try {
        await tracerProvider.shutdown();
      } catch (error) {
        // The spans are lost; the gateway still closes the rest.
        options.logError(error, 'exporting the last spans failed');
      }
    },
  };
}

function buildSampler(
  name: NonNullable<TelemetryConfig['traces']>['sampler'],
  ratio: number,
): Sampler {
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
