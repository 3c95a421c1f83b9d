/**
 * TypeScript shapes of the message-style bodies this gateway writes: responses and stream events
 * rendered for clients, and request bodies sent to a message-style upstream. What we read from
 * clients is checked by the schemas beside this file; what we read from upstreams is read
 * leniently field by field.
 */

export interface MessagesCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export interface MessagesTextBlock {
  type: 'text';
  text: string;
  cache_control?: MessagesCacheControl;
}

export type MessagesImageSource =
  { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface MessagesImageBlock {
  type: 'image';
  source: MessagesImageSource;
  cache_control?: MessagesCacheControl;
}

export interface MessagesToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  /** An object on the wire; a string only when the model's argument text was not valid JSON. */
  input: unknown;
  cache_control?: MessagesCacheControl;
}

export interface MessagesToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<MessagesTextBlock | MessagesImageBlock>;
  is_error?: boolean;
  cache_control?: MessagesCacheControl;
}

export interface MessagesThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface MessagesRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type MessagesUserBlock = MessagesTextBlock | MessagesImageBlock | MessagesToolResultBlock;

export type MessagesAssistantBlock =
  MessagesTextBlock | MessagesThinkingBlock | MessagesRedactedThinkingBlock | MessagesToolUseBlock;

export interface MessagesWireMessage {
  role: 'user' | 'assistant';
  content: Array<MessagesUserBlock | MessagesAssistantBlock>;
}

export interface MessagesUsageBody {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export interface MessagesResponseBody {
  id: string;
  type: 'message';
  role: 'assistant';
  content: MessagesAssistantBlock[];
  model: string;
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: MessagesUsageBody;
}
