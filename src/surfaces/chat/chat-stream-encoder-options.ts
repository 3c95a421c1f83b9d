import { isJsonObject } from './chat-decode-support.ts';

/**
 * What the chat stream encoder needs beyond the shared `SurfaceEncodeContext`: OpenAI sends the
 * usage chunk (`choices: []`) only when the client asked with `stream_options.include_usage`.
 */
export interface ChatStreamEncoderOptions {
  includeUsage?: boolean;
}

export function readChatStreamEncoderOptions(
  body: Record<string, unknown>,
): ChatStreamEncoderOptions {
  const streamOptions = body['stream_options'];
  return {
    includeUsage: isJsonObject(streamOptions) && streamOptions['include_usage'] === true,
  };
}
