import { ApiError } from '../canonical/generation-error.ts';

/**
 * Unknown, expired, another account's or another connection's `store: false` response: one
 * answer for all, so an id reveals nothing about who owns it. The code is the one OpenAI uses;
 * clients (Codex over WebSocket among them) react to it by resending the whole conversation.
 */
export function previousResponseNotFound(responseId: string): ApiError {
  return new ApiError(
    'previous_response_not_found',
    `Previous response with id '${responseId}' not found. It may have expired, or it was created with store: false outside this WebSocket connection; send the whole conversation in input instead.`,
    { details: { param: 'previous_response_id' } },
  );
}

/**
 * The previous response exists, but an earlier response of its chain, whose items its history
 * needs, is no longer stored (docs/decisions/0037). Answered with the same code as an unknown
 * id, because the remedy is the same: send the whole conversation.
 */
export function previousResponseHistoryBroken(responseId: string, missingId: string): ApiError {
  return new ApiError(
    'previous_response_not_found',
    `The history of previous response '${responseId}' is incomplete: the earlier response '${missingId}' it continues is no longer stored. Send the whole conversation in input instead.`,
    { details: { param: 'previous_response_id' } },
  );
}

/** The Conversations API keeps state at OpenAI, which the gateway never lets an upstream do. */
export function conversationNotAvailable(): ApiError {
  return new ApiError(
    'invalid_request',
    'Conversations are not available on this gateway; chain turns with previous_response_id or send the whole conversation in input.',
    { details: { param: 'conversation' } },
  );
}
