/**
 * The canonical generation call: our own hub between the three client dialects and the upstream
 * dialects (docs/architecture.md). Surface codecs decode into it, provider codecs encode from it.
 * It is deliberately not any vendor's format.
 */

/**
 * A cache breakpoint on a part or a tool (docs/api.md). `ttl` absent means the five-minute default.
 */
export interface CacheHint {
  ttl?: '5m' | '1h';
}

export type ImageSource =
  { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

export interface TextPart {
  type: 'text';
  text: string;
  cache?: CacheHint;
}

export interface ImagePart {
  type: 'image';
  source: ImageSource;
  cache?: CacheHint;
}

/**
 * Reasoning as the model produced it. Signed or encrypted reasoning only travels back to the
 * provider family that produced it, byte-identical; `provider` says which family that is.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /**
   * Anthropic `thinking.signature` or Gemini `thoughtSignature`, kept byte-identical. A Gemini
   * signature on a part with empty text belongs to the part after it (a function call or text),
   * where Gemini put it (docs/decisions/0153).
   */
  signature?: string;
  /** Anthropic `redacted_thinking.data`. When set, `text` is empty. */
  redactedData?: string;
  /** OpenAI responses `reasoning.encrypted_content`. */
  encryptedContent?: string;
  /** OpenAI responses reasoning item id (`rs_…`). */
  itemId?: string;
  /** Summary texts of an OpenAI responses reasoning item, one per summary part. */
  summary?: string[];
  provider?: ReasoningFamily;
}

/** The provider family that signed or encrypted a reasoning part. */
export type ReasoningFamily = 'anthropic' | 'openai' | 'google';

export interface ToolCallPart {
  type: 'tool-call';
  /** The id the tool result refers to (Anthropic `tool_use.id`, OpenAI `call_id`). */
  toolCallId: string;
  /** OpenAI responses item id (`fc_…`), distinct from `toolCallId`; kept when known. */
  itemId?: string;
  toolName: string;
  /** The arguments exactly as a JSON text (never re-serialised when we received text). */
  input: string;
  cache?: CacheHint;
}

export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  /** Tool name when the dialect carries it (chat does not). */
  toolName?: string;
  content: string | Array<TextPart | ImagePart>;
  isError?: boolean;
  cache?: CacheHint;
}

export type UserContentPart = TextPart | ImagePart | ToolResultPart;
export type AssistantContentPart = TextPart | ReasoningPart | ToolCallPart;
export type ContentPart = TextPart | ImagePart | ReasoningPart | ToolCallPart | ToolResultPart;

export type CanonicalMessage =
  | { role: 'system'; content: TextPart[] }
  | { role: 'user'; content: UserContentPart[] }
  | { role: 'assistant'; content: AssistantContentPart[] };

export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string;
  /** JSON Schema object of the arguments. */
  inputSchema: Record<string, unknown>;
  strict?: boolean;
  cache?: CacheHint;
}

export type ToolChoice =
  { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; toolName: string };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export type ReasoningConfig =
  | { type: 'disabled' }
  /** Anthropic `thinking: {type:"enabled", budget_tokens}`. */
  | { type: 'budget'; budgetTokens: number }
  /** OpenAI `reasoning.effort` / chat `reasoning_effort`; Anthropic adaptive thinking has none. */
  | { type: 'effort'; effort?: ReasoningEffort; summary?: 'auto' | 'concise' | 'detailed' };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json'; schema?: Record<string, unknown>; name?: string; strict?: boolean };

/**
 * A field the decoder met that the canonical model, or the chosen upstream, cannot carry.
 * `path` is a JSON path into the client's body (`messages[2].content[0].citations`).
 */
export interface TranslationIssue {
  path: string;
  reason: string;
}

export interface GenerationCall {
  /** The public model id the client named. */
  model: string;
  messages: CanonicalMessage[];
  tools: FunctionTool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  reasoning?: ReasoningConfig;
  responseFormat?: ResponseFormat;
  /** An end-user identifier for abuse tracking (Anthropic `metadata.user_id`, OpenAI `user`). */
  user?: string;
  stream: boolean;
}

/** The value of a pure codec: what it produced and what it could not carry. */
export interface CodecResult<T> {
  value: T;
  issues: TranslationIssue[];
}
