import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

/** The path of Bedrock's CountTokens for a model. */
export function bedrockCountTokensPath(upstreamModel: string): string {
  return `/model/${encodeURIComponent(upstreamModel)}/count-tokens`;
}

/**
 * A CountTokens body for a Claude model: the InvokeModel body it would be sent, base64 (the
 * operation counts exactly what InvokeModel would take).
 */
export function bedrockInvokeCountTokensBody(invokeBody: Record<string, unknown>): {
  input: { invokeModel: { body: string } };
} {
  return {
    input: {
      invokeModel: { body: Buffer.from(JSON.stringify(invokeBody)).toString('base64') },
    },
  };
}

/**
 * A CountTokens body for a Converse model: the prompt parts of its Converse body (`messages`,
 * `system`, `toolConfig`); output settings do not change the prompt size and are not sent.
 */
export function bedrockConverseCountTokensBody(converseBody: Record<string, unknown>): {
  input: { converse: Record<string, unknown> };
} {
  const { messages, system, toolConfig } = converseBody;
  return {
    input: {
      converse: {
        messages,
        ...(system !== undefined ? { system } : {}),
        ...(toolConfig !== undefined ? { toolConfig } : {}),
      },
    },
  };
}

/** CountTokens' answer, `{"inputTokens": n}`. */
export function readBedrockInputTokens(answer: unknown): number | undefined {
  if (!isJsonObject(answer)) return undefined;
  const count = answer.inputTokens;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : undefined;
}
