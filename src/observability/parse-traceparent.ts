import { isSpanContextValid, TraceFlags, type SpanContext } from '@opentelemetry/api';

const traceparentPattern =
  /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[\x21-\x7e]*)?$/;

/**
 * A W3C `traceparent` header as the remote span it names, or undefined when it is not one: the
 * version `ff`, zero ids, or (version 00) anything after the flags make it invalid.
 */
export function parseTraceparent(header: string): SpanContext | undefined {
  const match = traceparentPattern.exec(header.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const spanContext: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}
