import { isJsonObject, parseJsonText } from '../../wire/messages/messages-json-text.ts';
import type { UpstreamEvent } from '../provider-codec.ts';

/**
 * Bedrock's stream exceptions by the Anthropic error type that means the same to a client
 * (Messages API "Errors"): a stream exception ends the stream, as Anthropic's `error` event does.
 */
const anthropicTypeByException: Record<string, string> = {
  throttlingException: 'rate_limit_error',
  serviceUnavailableException: 'overloaded_error',
  modelNotReadyException: 'overloaded_error',
  validationException: 'invalid_request_error',
  accessDeniedException: 'permission_error',
  modelTimeoutException: 'timeout_error',
};

/**
 * An event-stream exception message (`:message-type: exception`, its name in `:exception-type`,
 * `{"message"}` as payload) as the `error` event of the message-style stream. A messages client
 * relayed Bedrock's stream reads it as its own dialect's error; the Converse decoder reads the
 * same event. The exception's own name stays at the head of the message, for the operator.
 */
export function bedrockExceptionEvent(exceptionType: string, payload: string): UpstreamEvent {
  const parsed = parseJsonText(payload);
  const said =
    parsed.ok && isJsonObject(parsed.value) && typeof parsed.value.message === 'string'
      ? parsed.value.message
      : undefined;
  const error = {
    type: anthropicTypeByException[exceptionType] ?? 'api_error',
    message: said === undefined ? exceptionType : `${exceptionType}: ${said}`,
  };
  return { event: 'error', data: JSON.stringify({ type: 'error', error }) };
}
