import type { FakeTokenCountReply } from './fake-reply.ts';
import { estimateTokens } from './resolve-fake-reply.ts';

/**
 * `POST /v1/messages/count_tokens`, `POST /v1/responses/input_tokens` and vLLM's `POST /tokenize`
 * success bodies.
 */
export function renderTokenCount(
  path: string,
  script: Exclude<FakeTokenCountReply, { status: number }> | undefined,
  rawBody: string,
): unknown {
  const inputTokens = script?.inputTokens ?? Math.max(1, estimateTokens(rawBody));
  if (path === '/tokenize') {
    const tokens = Array.from({ length: inputTokens }, (_, index) => 1000 + index);
    return { count: inputTokens, max_model_len: 32_768, tokens, token_strs: null };
  }
  return path === '/v1/responses/input_tokens'
    ? { object: 'response.input_tokens', input_tokens: inputTokens }
    : { input_tokens: inputTokens };
}

const listedSince = '2025-01-01T00:00:00Z';

/** `GET /v1/models`: Anthropic's paged list when asked in that style, else OpenAI's list. */
export function renderModelList(models: string[], anthropicStyle: boolean): unknown {
  if (anthropicStyle) {
    return {
      data: models.map((id) => ({ type: 'model', id, display_name: id, created_at: listedSince })),
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    };
  }
  const created = Math.floor(Date.parse(listedSince) / 1000);
  return {
    object: 'list',
    data: models.map((id) => ({ id, object: 'model', created, owned_by: 'fake-upstream' })),
  };
}

/**
 * Anthropic accepts `x-api-key` or an OAuth-style Bearer token; OpenAI reads only
 * `Authorization: Bearer`, so a key sent as `x-api-key` to an OpenAI route is refused.
 */
export function carriesKey(
  headers: Record<string, string>,
  key: string,
  anthropicStyle: boolean,
): boolean {
  if (headers.authorization === `Bearer ${key}`) return true;
  return anthropicStyle && headers['x-api-key'] === key;
}

/**
 * The key a request presents, read as the upstream would: `x-api-key` first, then a Bearer token,
 * in the Anthropic style; only `Authorization: Bearer` on the OpenAI routes.
 */
export function presentedKey(
  headers: Record<string, string>,
  anthropicStyle: boolean,
): string | undefined {
  if (anthropicStyle && headers['x-api-key'] !== undefined) return headers['x-api-key'];
  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '');
  return bearer?.[1];
}
