/**
 * A scripted upstream reply, written once and rendered in whichever dialect the request arrived
 * in (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses), as JSON or SSE according
 * to the request's `stream` flag.
 */
export type FakeReply = FakeSuccessReply | FakeErrorReply;

/** A reply, or a function of the recorded request that returns one (for request-aware scripts). */
export type FakeReplyScript = FakeReply | ((request: RecordedRequest) => FakeReply);

export type FakeOutputBlock =
  { text: string } | { reasoning: FakeReasoning } | { toolCall: FakeToolCall };

export interface FakeReasoning {
  /** Thinking text (Anthropic `thinking`, chat `reasoning_content`, Responses summary text). */
  text?: string;
  /** Anthropic only: the thinking block's signature; a deterministic one is made up if absent. */
  signature?: string;
  /**
   * Responses only: the reasoning item's `encrypted_content`, sent only when the request's
   * `include` lists `reasoning.encrypted_content`; made up if absent.
   */
  encryptedContent?: string;
  /** Anthropic only: renders a `redacted_thinking` block carrying this data instead of thinking. */
  redactedData?: string;
}

export interface FakeToolCall {
  /** Anthropic `tool_use.id`, chat `tool_calls[].id`, Responses `call_id`; made up if absent. */
  id?: string;
  /** Responses only: the `function_call` item's own `id` (`fc_…`), distinct from `call_id`. */
  itemId?: string;
  name: string;
  /** The arguments as JSON text, exactly as the model would emit them. */
  arguments: string;
}

/**
 * Dialect-neutral token counts. `input` is the uncached part of the prompt; every dialect's
 * own totals are derived from these parts (Anthropic `input_tokens` = `input`; OpenAI
 * `prompt_tokens` / `input_tokens` = `input + cacheRead + cacheWrite5m + cacheWrite1h`).
 * Absent counts default to: `input` from the request body size, `output` and `reasoning` from
 * the scripted output's length, cache counts 0.
 */
export interface FakeUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  /** Part of `output` (OpenAI `reasoning_tokens`; Anthropic has no separate count). */
  reasoning?: number;
}

/** Mapped to end_turn/max_tokens/tool_use, stop/length/tool_calls, completed/incomplete. */
export type FakeFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface FakeMidStreamError {
  /** Number of the reply's normal SSE events sent before the error event replaces the rest. */
  afterEvents: number;
  message?: string;
  /**
   * Anthropic `error.type` (default `overloaded_error`), chat `error.type` (default
   * `server_error`), Responses error `code` (default `server_error`).
   */
  type?: string;
  /** Responses only: send an `error` event (default) or a `response.failed` event. */
  responsesEvent?: 'error' | 'response.failed';
}

interface FakeReplyCommon {
  /** Wait this long before the status line (time to first byte). */
  delayMs?: number;
  /** Extra response headers (e.g. `retry-after`), added to the dialect's own. */
  headers?: Record<string, string>;
}

export interface FakeSuccessReply extends FakeReplyCommon {
  status?: undefined;
  /** Output blocks in order; two `toolCall` blocks make parallel tool calls. */
  output?: FakeOutputBlock[];
  usage?: FakeUsage;
  /** Defaults to `tool_calls` when the output has a tool call, else `stop`. */
  finishReason?: FakeFinishReason;
  /** Defaults to the request's `model`. */
  model?: string;
  /** Message / completion / response id; made up if absent. */
  id?: string;
  /** Pause between SSE events. */
  chunkDelayMs?: number;
  /** Stop after this many SSE events, before the dialect's terminator. */
  cutAfterEvents?: number;
  /** `destroy` (default) resets the socket mid-body; `end` finishes the body cleanly but early. */
  cutMode?: 'destroy' | 'end';
  /** The SSE event at this index is sent with its JSON data cut in half; the rest follow. */
  brokenFrameAt?: number;
  midStreamError?: FakeMidStreamError;
}

export interface FakeErrorReply extends FakeReplyCommon {
  /** An HTTP status ≥ 400, e.g. 400, 401, 429, 500, 529. */
  status: number;
  /** Sent verbatim (JSON-encoded unless a string) instead of the dialect's error shape. */
  errorBody?: unknown;
  /** Message inside the dialect's error shape; a status-specific default otherwise. */
  errorMessage?: string;
  /** Anthropic `error.type` / OpenAI `error.type`; derived from the status otherwise. */
  errorType?: string;
}

/** A scripted answer for the token-counting routes. */
export type FakeTokenCountReply = { inputTokens: number; delayMs?: number } | FakeErrorReply;

export type FakeDialect = 'anthropic' | 'chat' | 'responses' | 'gemini';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The route that answered: the path, or the dialect route a provider's own path maps to. */
  route: string;
  /** Set when the path is a cloud provider's own (Azure's `/openai/...`, Bedrock's `/model/...`). */
  wire?: 'azure-openai' | 'bedrock';
  query: Record<string, string>;
  /** Lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined when the body was empty or not JSON. */
  body: unknown;
  rawBody: string;
  /** The dialect the route implies, undefined for routes outside the three dialects. */
  dialect: FakeDialect | undefined;
  /**
   * The upstream key the request presented (see `presentedKey`), undefined without one; lets a
   * test count calls per key.
   */
  key: string | undefined;
  /** Set when the client closed the connection before the reply was fully written. */
  clientAborted: boolean;
}
