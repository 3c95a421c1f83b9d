import type { GenerationCall } from '../canonical/generation-call.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { ProviderCodec } from '../providers/provider-codec.ts';
import type { UpstreamResponse } from '../providers/shared/upstream-pool.ts';
import { parseUntrustedJson } from '../shared/parse-json.ts';
import type { Usage } from '../canonical/usage.ts';
import type { PassthroughAdapter } from './passthrough-adapter.ts';
import type { StreamContext } from './relay-stream.ts';

/** A non-streamed answer as the client gets it, with what it was charged. */
export interface JsonAnswer {
  text: string;
  /** Canonical usage as metered, undefined when the upstream reported none. */
  usage: Usage | undefined;
  /** Micro-credits charged. */
  cost: number;
}

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
  if (input.sameDialect) {
    const read = input.passthrough.readResultUsage(parsed);
    context.cleanup();
    const cost = await context.session.end({
      usage: read?.usage,
      deployment: context.deployment,
      outcome: 'ok',
      status: 200,
    });
    return { text: context.renameModel(text), usage: read?.usage, cost };
  }
  const result = input.provider.decodeResult(parsed, input.call as GenerationCall);
  context.cleanup();
  const cost = await context.session.end({
    usage: result.usage,
    deployment: context.deployment,
    outcome: 'ok',
    status: 200,
  });
  const encoded = context.surface.encodeResult(result, context.encodeContext, context.request);
  return { text: JSON.stringify(encoded), usage: result.usage, cost };
}
