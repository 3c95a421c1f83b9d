import { ApiError } from '../canonical/generation-error.ts';

/** The connection's last finished turn: the body it was created with and its response id. */
export interface AppendableTurn {
  body: Record<string, unknown>;
  responseId: string;
}

/** The fields Codex sends in a `response.append` frame (codex-api `ResponseAppendWsRequest`). */
const appendFields = new Set(['input', 'client_metadata']);

/**
 * A `response.append` frame as the `response.create` body it stands for. Codex
 * sends it on a WebSocket after a finished response when its next request changes nothing but
 * extends the input: the frame carries only the new items. The server continues the last
 * response with the same parameters, its input being the last request's input, that response's
 * output and the new items — which is the last body with `previous_response_id` set to that
 * response and the new items as its input, expanded from the connection's history as usual.
 */
export function expandResponseAppend(
  frame: Record<string, unknown>,
  last: AppendableTurn | undefined,
): Record<string, unknown> | ApiError {
  const { type: _type, ...fields } = frame;
  const unknown = Object.keys(fields).find((name) => !appendFields.has(name));
  if (unknown !== undefined) {
    return new ApiError(
      'invalid_request',
      `response.append carries only input and client_metadata, not ${unknown}; send response.create to change the request.`,
      { details: { param: unknown } },
    );
  }
  if (!Array.isArray(fields.input) || fields.input.length === 0) {
    return new ApiError(
      'invalid_request',
      'response.append needs input: a non-empty array of items.',
      {
        details: { param: 'input' },
      },
    );
  }
  if (last === undefined) {
    return new ApiError(
      'invalid_request',
      'response.append continues the last response of this connection, and none has finished here; send response.create.',
      { details: { param: 'type' } },
    );
  }
  const { input: _input, previous_response_id: _previous, ...parameters } = last.body;
  return {
    ...parameters,
    ...(fields.client_metadata !== undefined ? { client_metadata: fields.client_metadata } : {}),
    previous_response_id: last.responseId,
    input: fields.input,
  };
}
