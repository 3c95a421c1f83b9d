import { ConfigError } from './load-config.ts';

/** How spans are sampled: the OpenTelemetry sampler names, `OTEL_TRACES_SAMPLER`. */
export type TraceSamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

const samplerNames: readonly TraceSamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** Export of traces and metrics over OTLP/HTTP (docs/operations.md, "Traces"). */
export interface TelemetryConfig {
  /** `service.name` of every span and metric. */
  serviceName: string;
  /** Sent with every export (a collector's credential: never logged). */
  headers: Record<string, string>;
  /** Undefined when traces are not exported. */
  traces: { url: string; sampler: TraceSamplerName; ratio: number } | undefined;
  /** Undefined when metrics are not exported over OTLP. */
  metrics: { url: string; intervalMs: number } | undefined;
}

/**
 * The standard OpenTelemetry variables, or undefined when nothing is to be exported: no OTLP
 * endpoint is set, or `OTEL_SDK_DISABLED` is true. Then no exporter is built at all.
 */
export function readTelemetryConfig(env: NodeJS.ProcessEnv): TelemetryConfig | undefined {
  if (variable(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const base = variable(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  // The general endpoint is a base the signal's path is appended to; a signal's own is used as is.
  const signalUrl = (own: string, path: string): string | undefined => {
    const given = variable(env, own);
    if (given !== undefined) return checkUrl(own, given);
    return base === undefined
      ? undefined
      : checkUrl('OTEL_EXPORTER_OTLP_ENDPOINT', joinPath(base, path));
  };
  const tracesUrl =
    variable(env, 'OTEL_TRACES_EXPORTER') === 'none'
      ? undefined
      : signalUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'v1/traces');
  const metricsUrl =
    variable(env, 'OTEL_METRICS_EXPORTER') === 'none'
      ? undefined
      : signalUrl('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', 'v1/metrics');
  if (tracesUrl === undefined && metricsUrl === undefined) return undefined;
  return {
    serviceName: variable(env, 'OTEL_SERVICE_NAME') ?? 'switchyard',
    headers: parseHeaders(variable(env, 'OTEL_EXPORTER_OTLP_HEADERS')),
    traces: tracesUrl === undefined ? undefined : { url: tracesUrl, ...readSampler(env) },
    metrics:
      metricsUrl === undefined
        ? undefined
        : {
            url: metricsUrl,
            intervalMs: positiveInteger(env, 'OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000,
          },
  };
}

function variable(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function problem(text: string): ConfigError {
  return new ConfigError(`Invalid configuration:\n  ${text}`);
}

function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}

/** `value` when it is an http(s) URL; the problem names the variable it came from. */
function checkUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw problem(`${name}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw problem(`${name}: not an http(s) URL (OTLP is exported over HTTP)`);
  return value;
}

/** `key1=value1,key2=value2`, values percent-encoded (the OpenTelemetry format). */
function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (text === undefined) return headers;
  for (const entry of text.split(',')) {
    const at = entry.indexOf('=');
    const name = entry.slice(0, at).trim();
    // The value may be a credential, so the message never quotes the entry.
    if (at <= 0 || name === '') throw problem('OTEL_EXPORTER_OTLP_HEADERS: not key=value pairs');
    try {
      headers[name] = decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      throw problem(`OTEL_EXPORTER_OTLP_HEADERS: the value of "${name}" is not percent-encoded`);
    }
  }
  return headers;
}

function readSampler(env: NodeJS.ProcessEnv): { sampler: TraceSamplerName; ratio: number } {
  const name = variable(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on';
  if (!samplerNames.includes(name as TraceSamplerName))
    throw problem(`OTEL_TRACES_SAMPLER: one of ${samplerNames.join(', ')}`);
  const arg = variable(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = arg === undefined || !name.endsWith('traceidratio') ? 1 : Number(arg);
  if (!(ratio >= 0 && ratio <= 1))
    throw problem('OTEL_TRACES_SAMPLER_ARG: a ratio between 0 and 1');
  return { sampler: name as TraceSamplerName, ratio };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = variable(env, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) === 0) throw problem(`${name}: a positive integer`);
  return Number(value);
}
