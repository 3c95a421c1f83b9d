import type { CompactionService } from '../compaction/compaction-service.ts';
import type { GatewayFeature } from '../features/gateway-feature.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import { CountTokensService } from '../generation/count-tokens-service.ts';
import { dialectPassthroughAdapters } from '../generation/dialect-passthrough-adapters.ts';
import { GenerationService } from '../generation/generation-service.ts';
import { PromptTokenizers } from '../generation/prompt-tokenizers.ts';
import type { HttpMetrics } from '../http/http-metrics.ts';
import { generationRoutes } from '../http/routes/generation-routes.ts';
import type { CallObserver } from '../observability/call-observer.ts';
import { fanOutCallObservers } from '../observability/fan-out-call-observer.ts';
import { createPrometheusCallObserver } from '../observability/prometheus-call-observer.ts';
import { anthropicProvider } from '../providers/anthropic/anthropic-provider.ts';
import { bedrockConverseProvider } from '../providers/bedrock/bedrock-converse-provider.ts';
import { anthropicCountTokensPath } from '../providers/anthropic/convert-to-anthropic-count-tokens-request.ts';
import { convertToOpenAIChatTokenizeRequest } from '../providers/openai-chat/convert-to-openai-chat-tokenize-request.ts';
import { openAIChatProvider } from '../providers/openai-chat/openai-chat-provider.ts';
import {
  convertToOpenAIInputTokensRequest,
  openAIResponsesInputTokensPath,
} from '../providers/openai-responses/convert-to-openai-input-tokens-request.ts';
import { openAIResponsesProvider } from '../providers/openai-responses/openai-responses-provider.ts';
import { geminiProvider } from '../providers/gemini/gemini-provider.ts';
import type { ResponsesState } from '../responses-state/responses-state.ts';
import { chatSurface } from '../surfaces/chat/chat-surface.ts';
import { messagesSurface } from '../surfaces/messages/messages-surface.ts';
import { responsesSurface } from '../surfaces/responses/responses-surface.ts';
import { chatRequestSchema } from '../wire/chat/chat-request-schema.ts';
import { chatResponseSchema } from '../wire/chat/chat-response-schema.ts';
import {
  countTokensRequestSchema,
  messagesRequestSchema,
} from '../wire/messages/messages-request-schema.ts';
import {
  countTokensResponseSchema,
  messageResponseSchema,
} from '../wire/messages/messages-response-schema.ts';
import { responseObjectSchema } from '../wire/responses/responses-object-schema.ts';
import { responsesRequestSchema } from '../wire/responses/responses-request-schema.ts';

export interface ComposedGeneration {
  generation: GenerationService;
  /** The three generation routes and the two token-counting routes. */
  feature: GatewayFeature;
}

/**
 * The generation pipeline: the three surfaces over the three providers (docs/architecture.md). A
 * new provider codec is added to `providers` here; a new surface, to `surfaces` and the schemas.
 */
export function composeGeneration(
  parts: GatewayParts,
  options: {
    compaction: CompactionService;
    responsesState: ResponsesState;
    metrics?: HttpMetrics;
    /** Exports each finished call over OTLP; absent when no endpoint is configured. */
    otel?: CallObserver | undefined;
  },
): ComposedGeneration {
  const promptTokenizers = new PromptTokenizers();
  // Told of every finished call (src/observability/): its metrics beside the HTTP ones.
  const observers: CallObserver[] = [];
  if (options.metrics !== undefined)
    observers.push(createPrometheusCallObserver(options.metrics.registry));
  // Exported over OTLP only when an endpoint is configured.
  if (options.otel !== undefined) observers.push(options.otel);
  // One codec per upstream dialect: a new dialect adds its line here.
  const codecs = {
    anthropic: anthropicProvider,
    'openai-chat': openAIChatProvider,
    'openai-responses': openAIResponsesProvider,
    gemini: geminiProvider,
    'bedrock-converse': bedrockConverseProvider,
  };
  const countTokens = new CountTokensService({
    codecs,
    catalog: parts.catalog,
    pools: parts.pools,
    messagesSurface,
    anthropicPassthrough: dialectPassthroughAdapters.messages,
    encodeOpenAIInputTokens: (call, upstreamModel) =>
      convertToOpenAIInputTokensRequest(call, { upstreamModel }),
    encodeOpenAIChatTokenize: (call, upstreamModel) =>
      convertToOpenAIChatTokenizeRequest(call, { upstreamModel }),
    tokenizers: promptTokenizers,
    anthropicCountPath: anthropicCountTokensPath,
    openAIInputTokensPath: openAIResponsesInputTokensPath,
    providerKey: parts.providerKey,
    now: parts.now,
  });
  const generation = new GenerationService({
    catalog: parts.catalog,
    pools: parts.pools,
    billing: parts.billing,
    providers: codecs,
    passthrough: dialectPassthroughAdapters,
    router: parts.router,
    logAttemptFailure: (fields) => parts.logEvent('warn', 'upstream attempt failed', fields),
    now: parts.now,
    compaction: options.compaction,
    turnHooks: { responses: options.responsesState.turnHook },
    promptCounter: countTokens,
    promptTokenizers,
    ...(observers.length > 0
      ? {
          observer: fanOutCallObservers(observers, (error) =>
            parts.logError(error, 'observing a finished call failed'),
          ),
        }
      : {}),
  });
  const feature: GatewayFeature = {
    routes: [
      (app) =>
        generationRoutes(app, {
          authenticator: parts.authenticator,
          generation,
          countTokens,
          ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
          surfaces: { messages: messagesSurface, responses: responsesSurface, chat: chatSurface },
          schemas: {
            messagesRequest: messagesRequestSchema,
            messageResponse: messageResponseSchema,
            countTokensRequest: countTokensRequestSchema,
            countTokensResponse: countTokensResponseSchema,
            responsesRequest: responsesRequestSchema,
            responseObject: responseObjectSchema,
            chatRequest: chatRequestSchema,
            chatResponse: chatResponseSchema,
          },
        }),
    ],
  };
  return { generation, feature };
}
