/** Where a Vertex AI provider's calls go: its Google Cloud project and region (`location`). */
export interface VertexLocation {
  project: string;
  region: string;
}

/** The model publishers a Vertex AI deployment may name: Anthropic's Claude, Google's Gemini. */
export type VertexPublisher = 'anthropic' | 'google';

export type VertexMethod =
  'rawPredict' | 'streamRawPredict' | 'generateContent' | 'streamGenerateContent' | 'countTokens';

/**
 * The publisher of an upstream model name: `claude-…` (e.g. `claude-sonnet-4-5@20250929`) is
 * Anthropic's, `gemini-…` Google's; undefined for any other name.
 */
export function vertexPublisherOf(upstreamModel: string): VertexPublisher | undefined {
  if (upstreamModel.startsWith('claude-')) return 'anthropic';
  if (upstreamModel.startsWith('gemini-')) return 'google';
  return undefined;
}

/** A path segment; `@` stays as it is, as Google's model version names write it. */
function segment(value: string): string {
  return encodeURIComponent(value).replaceAll('%40', '@');
}

/**
 * `/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}`,
 * relative to the provider's origin (Vertex AI REST reference, `projects.locations.publishers.
 * models`). Gemini's stream asks for server-sent events (`alt=sse`) instead of a JSON array.
 */
export function buildVertexModelPath(
  location: VertexLocation,
  publisher: VertexPublisher,
  model: string,
  method: VertexMethod,
): string {
  const path =
    `/v1/projects/${segment(location.project)}/locations/${segment(location.region)}` +
    `/publishers/${publisher}/models/${segment(model)}:${method}`;
  return method === 'streamGenerateContent' ? `${path}?alt=sse` : path;
}

/** Claude's token count on Vertex AI: one route for every model, named in the body. */
export function buildVertexCountTokensPath(location: VertexLocation): string {
  return buildVertexModelPath(location, 'anthropic', 'count-tokens', 'rawPredict');
}
