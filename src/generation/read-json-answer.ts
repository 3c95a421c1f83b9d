import type { GenerationCall } from '../canonical/generation-call.ts';
import { ApiError } from '../canonical/generation-error.ts';
import { chargeDeliveredUsage } from './charge-delivered-usage.ts';
import { countAnswerText } from './count-relayed-text.ts';
import type { ProviderCodec } from '../providers/provider-codec.ts';
import type { UpstreamDialect } from '../providers/provider-transport.ts';
import type { UpstreamResponse } from '../providers/shared/upstream-pool.ts';
import { parseUntrustedJson } from '../shared/parse-json.ts';
import type { Usage } from '../canonical/usage.ts';
import type { PassthroughAdapter } from './passthrough-adapter.ts';
import type { StreamContext } from './relay-stream.ts';

/** A non-streamed answer as the client gets it, with what it was charged. */
export interface JsonAnswer {
  text: string;
  /** Canonical usage as metered: the upstream's, or the estimate of decision 0016 without one. */
  usage: Usage | undefined;
  /** Micro-credits charged. */
  cost: number;
}

/** Where each dialect reports a whole answer's usage, at the top level of its body. */
const usageField: Record<UpstreamDialect, string> = {
  anthropic: 'usage',
  'openai-chat': 'usage',
  'openai-responses': 'usage',
  gemini: 'usageMetadata',
  'bedrock-converse': 'usage',
};

/**
 * A non-streamed answer. Same dialect: the upstream's bytes go back unchanged and only usage is
 * read. Cross dialect: decode to canonical and render in the client's dialect. Settles either way.
 */
export async function readJsonAnswer(input: {
  response: UpstreamResponse;
  context: StreamContext;
  sameDialect: boolean;
  passthrough: PassthroughAdapter;
  provider: ProviderCodec;
  call: GenerationCall | undefined;
}): Promise<JsonAnswer> {
  const { response, context } = input;
  let text: string;
  let parsed: unknown;
  try {
    text = await response.body.text();
    parsed = parseUntrustedJson(text);
  } catch (error) {
    context.cleanup();
    await context.session.end({
      usage: undefined,
      deployment: context.deployment,
      outcome: 'upstream_error',
      status: 502,
    });
    throw new ApiError(
      'upstream_error',
      `The upstream answer could not be read: ${(error as Error).message}`,
    );
  }
  // docs/decisions/0016: a whole answer without a usage report is billed for its text, never free.
  const delivered = (reported: Usage | undefined): Usage | undefined =>
    reported ??
    chargeDeliveredUsage(
      undefined,
      { events: 1, characters: countAnswerText[input.provider.dialect](parsed) },
      context,
    );
  if (input.sameDialect) {
    const usage = delivered(input.passthrough.readResultUsage(parsed)?.usage);
    context.cleanup();
    const cost = await context.session.end({
      usage,
      deployment: context.deployment,
      outcome: 'ok',
      status: 200,
    });
    return { text: context.renameModel(text), usage, cost };
  }
  const result = input.provider.decodeResult(parsed, input.call as GenerationCall);
  // A decoded result carries zeros where the upstream sent no usage.
  const reported = (parsed as Record<string, unknown> | null)?.[usageField[input.provider.dialect]];
  const usage = delivered(reported === undefined || reported === null ? undefined : result.usage);
  context.cleanup();
  const cost = await context.session.end({
    usage,
    deployment: context.deployment,
    outcome: 'ok',
    status: 200,
  });
  const encoded = context.surface.encodeResult(result, context.encodeContext, context.request);
  return { text: JSON.stringify(encoded), usage, cost };
}
