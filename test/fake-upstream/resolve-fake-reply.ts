import type {
  FakeFinishReason,
  FakeMidStreamError,
  FakeOutputBlock,
  FakeSuccessReply,
  RecordedRequest,
} from './fake-reply.ts';

/** Every count filled in; `input` is the uncached prompt part, `reasoning` part of `output`. */
export interface ResolvedUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  reasoning: number;
}

/** A success reply with its defaults applied, ready for a dialect renderer. */
export interface ResolvedReply {
  output: FakeOutputBlock[];
  usage: ResolvedUsage;
  finishReason: FakeFinishReason;
  model: string;
  id: string | undefined;
  midStreamError: FakeMidStreamError | undefined;
}

/** A stable stand-in for a tokenizer: one token per four UTF-8 bytes, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

function reasoningText(output: FakeOutputBlock[]): string {
  return output.map((block) => ('reasoning' in block ? (block.reasoning.text ?? '') : '')).join('');
}

function visibleText(output: FakeOutputBlock[]): string {
  return output
    .map((block) => {
      if ('text' in block) return block.text;
      if ('toolCall' in block) return block.toolCall.name + block.toolCall.arguments;
      return '';
    })
    .join('');
}

export function resolveFakeReply(reply: FakeSuccessReply, request: RecordedRequest): ResolvedReply {
  const output = reply.output ?? [];
  const usage = reply.usage ?? {};
  const reasoningEstimate = estimateTokens(reasoningText(output));
  const outputTokens =
    usage.output ?? Math.max(1, estimateTokens(visibleText(output)) + reasoningEstimate);
  const requestModel = (request.body as { model?: unknown } | undefined)?.model;
  return {
    output,
    usage: {
      input: usage.input ?? Math.max(1, estimateTokens(request.rawBody)),
      output: outputTokens,
      cacheRead: usage.cacheRead ?? 0,
      cacheWrite5m: usage.cacheWrite5m ?? 0,
      cacheWrite1h: usage.cacheWrite1h ?? 0,
      // Reasoning is part of the output, so a scripted output count also bounds it.
      reasoning: usage.reasoning ?? Math.min(reasoningEstimate, outputTokens),
    },
    finishReason:
      reply.finishReason ?? (output.some((block) => 'toolCall' in block) ? 'tool_calls' : 'stop'),
    model: reply.model ?? (typeof requestModel === 'string' ? requestModel : 'fake-model'),
    id: reply.id,
    midStreamError: reply.midStreamError,
  };
}

/** The whole prompt as OpenAI counts it: cached reads and (unreported) cache writes included. */
export function totalInputTokens(usage: ResolvedUsage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite5m + usage.cacheWrite1h;
}
