import { describe, expect, it } from 'vitest';
import { ConfigError } from './load-config.ts';
import { readTelemetryConfig } from './read-telemetry-config.ts';

describe('readTelemetryConfig', () => {
  it('exports nothing without an endpoint', () => {
    expect(readTelemetryConfig({})).toBeUndefined();
    expect(
      readTelemetryConfig({ OTEL_SERVICE_NAME: 'edge', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }),
    ).toBeUndefined();
  });

  it("appends each signal's path to the general endpoint, with the defaults", () => {
    expect(readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      serviceName: 'switchyard',
      headers: {},
      traces: {
        url: 'http://collector:4318/v1/traces',
        sampler: 'parentbased_always_on',
        ratio: 1,
      },
      metrics: { url: 'http://collector:4318/v1/metrics', intervalMs: 60_000 },
    });
  });

  it("uses a signal's own endpoint as given, and leaves out a signal set to none", () => {
    const config = readTelemetryConfig({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    expect(config?.traces?.url).toBe('https://traces.example/otlp');
    expect(config?.metrics).toBeUndefined();
    expect(
      readTelemetryConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_METRICS_EXPORTER: 'none',
      }),
    ).toBeUndefined();
  });

  it('is off when the SDK is disabled', () => {
    expect(
      readTelemetryConfig({
        OTEL_SDK_DISABLED: 'TRUE',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      }),
    ).toBeUndefined();
  });

  it('reads the service name, percent-encoded headers, the sampler and its ratio', () => {
    const config = readTelemetryConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'gateway-eu',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-tenant = eu=1',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_METRIC_EXPORT_INTERVAL: '15000',
    });
    expect(config).toMatchObject({
      serviceName: 'gateway-eu',
      headers: { authorization: 'Bearer abc', 'x-tenant': 'eu=1' },
      traces: { sampler: 'parentbased_traceidratio', ratio: 0.25 },
      metrics: { intervalMs: 15_000 },
    });
  });

  it('refuses what it cannot use, never quoting a header value', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    const refused = (env: Record<string, string>) => () => readTelemetryConfig({ ...base, ...env });
    expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT: not an http\(s\) URL/,
    );
    expect(refused({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_METRICS_ENDPOINT/,
    );
    expect(refused({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(ConfigError);
    expect(refused({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
    expect(refused({ OTEL_METRIC_EXPORT_INTERVAL: '0' })).toThrow(/OTEL_METRIC_EXPORT_INTERVAL/);
    const headers = refused({ OTEL_EXPORTER_OTLP_HEADERS: 'secret-token-value' });
    expect(headers).toThrow(/OTEL_EXPORTER_OTLP_HEADERS/);
    expect(headers).not.toThrow(/secret-token-value/);
  });
});
