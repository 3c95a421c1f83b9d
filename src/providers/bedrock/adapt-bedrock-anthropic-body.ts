type ClientHeaders = Record<string, string | string[] | undefined>;

/** The Messages API version Bedrock's Claude models take in the body (Bedrock user guide). */
export const bedrockAnthropicVersion = 'bedrock-2023-05-31';

/** The client's `anthropic-beta` header as a list, or undefined without one. */
function clientBetas(headers: ClientHeaders): string[] | undefined {
  const raw = headers['anthropic-beta'];
  const joined = Array.isArray(raw) ? raw.join(',') : raw;
  if (joined === undefined) return undefined;
  const betas = joined
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '');
  return betas.length > 0 ? betas : undefined;
}

/**
 * A Messages API body as InvokeModel takes it for a Claude model: the model is in the path and
 * streaming in the operation, so `model` and `stream` go (Bedrock refuses them as extraneous
 * keys), `anthropic_version` is set, and the client's `anthropic-beta` header travels as the
 * `anthropic_beta` list. Everything else is the client's body as it came (same-dialect relay).
 * A copy: `body` is left as it is.
 */
export function adaptBedrockAnthropicBody(
  body: Record<string, unknown>,
  clientHeaders: ClientHeaders,
): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = body;
  const adapted: Record<string, unknown> = { anthropic_version: bedrockAnthropicVersion, ...rest };
  const betas = clientBetas(clientHeaders);
  if (betas !== undefined) adapted.anthropic_beta = betas;
  return adapted;
}
