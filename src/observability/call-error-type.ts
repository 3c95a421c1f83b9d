import type { ObservedCall } from './call-observer.ts';

/** A stream whose headers left as a success but whose upstream broke off before its end. */
export function brokeAfterHeaders(call: ObservedCall): boolean {
  return call.status < 400 && (call.outcome === 'upstream_error' || call.outcome === 'incomplete');
}

/**
 * Why a call did not answer in full, in a few bounded words (the OpenTelemetry `error.type`): the
 * last attempt's failure class when the upstreams failed it, otherwise its outcome (`refused`,
 * `cancelled`, `incomplete`, …); undefined for a whole answer.
 */
export function callErrorType(call: ObservedCall): string | undefined {
  if (brokeAfterHeaders(call)) return call.outcome;
  if (call.status < 400) return undefined;
  return (
    call.attempts.at(-1)?.failure ?? (call.outcome === 'ok' ? String(call.status) : call.outcome)
  );
}
