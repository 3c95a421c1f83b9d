/** The API version Claude on Vertex AI takes in the body, in place of `anthropic-version`. */
export const vertexAnthropicVersion = 'vertex-2023-10-16';

/**
 * A Messages body as Claude on Vertex AI takes it: the model is in the URL, not the body, and
 * `anthropic_version` is in the body (Anthropic's "Claude on Vertex AI" page). `stream` stays:
 * `streamRawPredict` streams only a body that asks to. Everything else passes as the client or
 * the codec wrote it (thinking signatures, cache markers, unknown fields). The input is not
 * modified.
 */
export function adaptVertexAnthropicBody(body: Record<string, unknown>): Record<string, unknown> {
  const adapted: Record<string, unknown> = { anthropic_version: vertexAnthropicVersion };
  for (const [name, value] of Object.entries(body)) {
    if (name !== 'model' && name !== 'anthropic_version') adapted[name] = value;
  }
  return adapted;
}

/**
 * A count_tokens body for Vertex AI's `count-tokens:rawPredict`, which, unlike generation, reads
 * the model from the body.
 */
export function adaptVertexCountTokensBody(
  body: Record<string, unknown>,
  upstreamModel: string,
): Record<string, unknown> {
  return { ...adaptVertexAnthropicBody(body), model: upstreamModel };
}
