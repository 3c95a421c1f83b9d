import type { Usage } from '../../canonical/usage.ts';
import { mapOpenAIChatUsage } from './map-openai-chat-usage.ts';
import { isRecord } from './parse-openai-chat-json.ts';

/** The usage of a relayed non-streamed `chat.completion` body (fast path), if it has one. */
export function readChatResultUsage(body: unknown): Usage | undefined {
  return isRecord(body) ? mapOpenAIChatUsage(body['usage']) : undefined;
}
