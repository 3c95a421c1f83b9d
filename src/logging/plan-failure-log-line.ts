import { ApiError } from '../canonical/generation-error.ts';

/** One log line for a failed request or tool call: its level, its message and its fields. */
export interface FailureLogLine {
  level: 'error' | 'warn' | 'info';
  message: string;
  fields: Record<string, unknown>;
}

/**
 * The error's kind and first line (`Error ECONNREFUSED: connect …`), no stack: for an outage the
 * outage is the news, and the same trace on every request is noise.
 */
function describeFailure(error: Error): string {
  const { code } = error as { code?: unknown };
  return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message.split('\n')[0] ?? ''}`;
}

/**
 * How a failure is logged, wherever it is answered (an HTTP route, an MCP tool): an upstream's
 * failure is one line naming the provider and the cause, at warn when the operator must fix
 * something (a key, a baseUrl) and at info when the upstream refused the client's request
 * (docs/decisions/0111); an outage or a failure the gateway names itself is one warn line; only
 * an unexpected error, a bug, is logged at error with its stack. Undefined: nothing to log (a
 * client's mistake).
 */
export function planFailureLogLine(error: unknown, apiError: ApiError): FailureLogLine | undefined {
  if (apiError.diagnosis !== undefined) {
    return {
      level: apiError.status >= 500 ? 'warn' : 'info',
      message: 'upstream call failed',
      fields: { code: apiError.code, status: apiError.status, ...apiError.diagnosis },
    };
  }
  if (apiError.code === 'not_ready') {
    const reason = error instanceof Error ? describeFailure(error) : apiError.message;
    return { level: 'warn', message: 'a store is unreachable', fields: { reason } };
  }
  if (apiError.code === 'bodies_in_flight_full') {
    // Shedding load is the gateway working as configured (docs/operations.md), not a failure.
    return { level: 'warn', message: 'request body refused: budget full', fields: {} };
  }
  if (apiError.status < 500) return undefined;
  if (error instanceof ApiError) {
    return {
      level: 'warn',
      message: 'request failed',
      fields: { code: apiError.code, status: apiError.status, reason: apiError.message },
    };
  }
  return { level: 'error', message: 'request failed', fields: { err: error } };
}
