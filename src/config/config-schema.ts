import { Type, type Static } from 'typebox';

import { ImagesConfigSchema } from './images-config-schema.ts';
import { SearchConfigSchema } from './search-config-schema.ts';
import { StorageConfigSchema } from './storage-config-schema.ts';
import { TranscriptionConfigSchema } from './transcription-config-schema.ts';

const Positive = (defaultValue: number, description: string) =>
  Type.Integer({ minimum: 1, default: defaultValue, description });

/** One upstream key of a provider: its variable, and the upstream account's own per-minute limits. */
const UpstreamKeySchema = Type.Union([
  Type.String({ minLength: 1, description: 'Name of the environment variable with the key.' }),
  Type.Object(
    {
      env: Type.String({ minLength: 1, description: 'Name of the environment variable.' }),
      requestsPerMinute: Type.Optional(
        Type.Integer({ minimum: 1, description: "The upstream account's request budget." }),
      ),
      tokensPerMinute: Type.Optional(
        Type.Integer({ minimum: 1, description: "The upstream account's token budget." }),
      ),
    },
    { additionalProperties: false },
  ),
]);

export const ProviderConfigSchema = Type.Object(
  {
    kind: Type.Union(
      [
        Type.Literal('anthropic'),
        Type.Literal('openai-chat'),
        Type.Literal('openai-responses'),
        Type.Literal('openai-transcription'),
        Type.Literal('azure-openai'),
        Type.Literal('gemini'),
        Type.Literal('vertex'),
        Type.Literal('bedrock'),
      ],
      { description: 'How the upstream is reached and which dialect it speaks.' },
    ),
    baseUrl: Type.String({
      minLength: 1,
      description:
        'e.g. https://api.anthropic.com. bedrock, vertex, gemini and azure-openai: the origin only (scheme, host, port); bedrock, vertex and gemini default to the public endpoint of their region.',
    }),
    region: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'bedrock and vertex: the cloud region, e.g. us-east-1 or us-east5.',
      }),
    ),
    project: Type.Optional(
      Type.String({ minLength: 1, description: 'vertex: the Google Cloud project id.' }),
    ),
    apiVersion: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'azure-openai: the api-version of the deployment routes; without it the /openai/v1/ routes.',
      }),
    ),
    authScheme: Type.Optional(
      Type.Union([Type.Literal('api-key'), Type.Literal('bearer')], {
        description:
          'azure-openai: send the key as the api-key header (default) or as a Bearer token.',
      }),
    ),
    apiKeyEnv: Type.Optional(
      Type.Union([
        Type.String({
          minLength: 1,
          description: 'Name of the environment variable with the key.',
        }),
        Type.Array(UpstreamKeySchema, {
          minItems: 1,
          description: 'Several keys: each is its own routing target (docs/routing.md).',
        }),
      ]),
    ),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    connectTimeoutMs: Positive(10_000, 'TCP/TLS connect timeout.'),
    firstByteTimeoutMs: Positive(120_000, 'Time from the send to the upstream response headers.'),
    idleTimeoutMs: Positive(300_000, 'Longest silence between two body chunks.'),
    maxConnections: Positive(256, 'Keep-alive pool size of this provider (its own pool).'),
    forwardCompaction: Type.Optional(
      Type.Boolean({
        description:
          'openai-responses only: the upstream implements /v1/responses/compact (default: only api.openai.com).',
      }),
    ),
    countInputTokens: Type.Optional(
      Type.Boolean({
        description:
          'OpenAI-style providers only: the upstream implements /v1/responses/input_tokens, used for count_tokens and for the prompt size at the start of a message-style stream (default: every openai-responses provider, and an openai-chat provider at api.openai.com).',
      }),
    ),
    tokenizePath: Type.Optional(
      Type.String({
        pattern: '^/',
        description:
          "openai-chat only: the upstream's tokenize route for chat messages (vLLM: /tokenize), used by count_tokens.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The local tokenizers (gpt-tokenizer) an OpenAI-style deployment's prompt can be counted with. */
export const TokenizerSchema = Type.Union(
  [Type.Literal('o200k_base'), Type.Literal('cl100k_base'), Type.Literal('none')],
  {
    description:
      'OpenAI-style deployments only: the encoding of the upstream model (default: from its name).',
  },
);

/** Prices in credits per million tokens (1 credit = 1 USD unless configured otherwise). */
const Price = Type.Number({ minimum: 0 });

export const ModelConfigSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'Public model id clients send.' }),
    displayName: Type.Optional(Type.String()),
    created: Type.Optional(Type.Integer({ minimum: 0, description: 'Epoch seconds.' })),
    ownedBy: Type.Optional(Type.String()),
    deployments: Type.Array(
      Type.Object(
        {
          provider: Type.String({ minLength: 1 }),
          upstreamModel: Type.String({ minLength: 1 }),
          tokenizer: Type.Optional(TokenizerSchema),
          priority: Type.Integer({
            default: 0,
            description: 'Lower is tried first; a higher one only when no lower one is healthy.',
          }),
          weight: Type.Number({
            exclusiveMinimum: 0,
            default: 1,
            description: 'Share of the calls among the healthy deployments of one priority.',
          }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, description: 'Where the model runs; the router chooses (docs/routing.md).' },
    ),
    routing: Type.Object(
      {
        strategy: Type.Union(
          [Type.Literal('weighted'), Type.Literal('least-busy'), Type.Literal('latency')],
          { default: 'weighted' },
        ),
        affinity: Type.Boolean({
          default: true,
          description: 'Keep a conversation on the target whose prompt cache is warm.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    fallbacks: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'Other model ids tried, in order, after every target of this one failed or when the prompt exceeds its context window.',
      }),
    ),
    capabilities: Type.Object(
      {
        streaming: Type.Boolean({ default: true }),
        tools: Type.Boolean({ default: true }),
        vision: Type.Boolean({ default: false }),
        reasoning: Type.Boolean({ default: false }),
        promptCache: Type.Boolean({ default: false }),
      },
      { additionalProperties: false, default: {} },
    ),
    contextWindow: Type.Integer({ minimum: 1 }),
    maxOutputTokens: Type.Integer({ minimum: 1 }),
    pricing: Type.Object(
      {
        input: Price,
        output: Price,
        cacheRead: Type.Optional(Price),
        cacheWrite5m: Type.Optional(Price),
        cacheWrite1h: Type.Optional(Price),
      },
      { additionalProperties: false },
    ),
    ignoreFields: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'Request fields the operator allows to be ignored on cross-dialect routes of this model.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** How the router treats upstream signals (docs/routing.md). */
export const RoutingConfigSchema = Type.Object(
  {
    cooldownSeconds: Positive(
      30,
      'How long a key that answered 429 without a retry-after is left out.',
    ),
    failureThreshold: Positive(
      5,
      'Consecutive failures (5xx, timeout, connection) that open a target’s circuit.',
    ),
    circuitOpenSeconds: Positive(30, 'How long an open circuit waits before one probe call.'),
    disabledProbeSeconds: Positive(
      300,
      'How long a refused (401/403) or exhausted (402) key waits before one probe call.',
    ),
    maxAttempts: Positive(3, 'Upstream calls one request may make before its first byte.'),
    retryDeadlineMs: Positive(30_000, 'No new attempt starts this long after the request began.'),
    backoffMs: Type.Integer({
      minimum: 0,
      default: 50,
      description: 'Base of the jittered wait before an attempt that follows a 5xx or timeout.',
    }),
    affinityMaxEntries: Positive(100_000, 'Conversations remembered for session affinity.'),
  },
  { additionalProperties: false, default: {} },
);

export const LimitSetSchema = Type.Object(
  {
    requestsPerMinute: Type.Optional(Type.Integer({ minimum: 1 })),
    tokensPerMinute: Type.Optional(Type.Integer({ minimum: 1 })),
    concurrentRequests: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** Headers and timeouts shared by the connected-provider upstreams (docs/decisions/0010). */
const connectedUpstreamFields = {
  apiKeyEnv: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'Environment variable with the key, sent as Authorization: Bearer.',
    }),
  ),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  connectTimeoutMs: Positive(10_000, 'TCP/TLS connect (and WebSocket handshake) timeout.'),
};

export const ConnectedConfigSchema = Type.Object(
  {
    transcribe: Type.Optional(
      Type.Object(
        {
          url: Type.String({
            minLength: 1,
            description: 'Full http(s) URL the /transcribe body is POSTed to.',
          }),
          ...connectedUpstreamFields,
          firstByteTimeoutMs: Positive(120_000, 'Time to the upstream response headers.'),
          idleTimeoutMs: Positive(300_000, 'Longest silence between two body chunks.'),
          maxBodyBytes: Positive(27_262_976, 'Largest forwarded body (25 MiB file + form).'),
        },
        { additionalProperties: false },
      ),
    ),
    websocket: Type.Optional(
      Type.Object(
        {
          url: Type.String({
            minLength: 1,
            description: 'ws(s) URL the /ws connections are relayed to.',
          }),
          ...connectedUpstreamFields,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, default: {} },
);

export const ConfigSchema = Type.Object(
  {
    server: Type.Object(
      {
        host: Type.String({ default: '0.0.0.0' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
        bodyLimitBytes: Positive(32 * 1024 * 1024, 'Largest accepted request body.'),
        // What a slow, stalled or flooding client can hold (docs/operations.md).
        requestReceiveTimeoutMs: Type.Integer({
          minimum: 0,
          default: 60_000,
          description:
            'Longest time to receive a whole request (headers and body); 408 and the connection closed beyond it. 0 disables.',
        }),
        bodiesInFlightLimitBytes: Positive(
          256 * 1024 * 1024,
          'Bytes of JSON request bodies being received at once, across all connections; 503 beyond it.',
        ),
        publicBaseUrl: Type.Optional(Type.String({ minLength: 1 })),
        shutdownGraceMs: Positive(
          15_000,
          'How long in-flight requests may finish on SIGTERM; past it they are cut and charged for what they delivered.',
        ),
        logLevel: Type.Union(
          ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) =>
            Type.Literal(level),
          ),
          { default: 'info' },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    dataDir: Type.String({ default: './data' }),
    store: Type.Object(
      {
        backend: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')], {
          default: 'sqlite',
        }),
        postgresUrl: Type.Optional(Type.String({ minLength: 1 })),
        redisUrl: Type.Optional(Type.String({ minLength: 1 })),
        redisKeyPrefix: Type.String({
          minLength: 1,
          default: 'switchyard',
          description:
            'Every Redis key and channel of the gateway starts with it; gateways sharing one Redis with a different prefix share nothing.',
        }),
        connectWaitSeconds: Type.Integer({
          minimum: 0,
          default: 30,
          description:
            'How long start-up retries an unreachable PostgreSQL or Redis before giving up.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    admin: Type.Object(
      {
        tokenEnv: Type.String({ default: 'SWITCHYARD_ADMIN_TOKEN' }),
      },
      { additionalProperties: false, default: {} },
    ),
    providers: Type.Record(
      Type.String({ pattern: '^[a-z0-9][a-z0-9_-]*$' }),
      ProviderConfigSchema,
      {
        default: {},
      },
    ),
    models: Type.Array(ModelConfigSchema, { default: [] }),
    routing: RoutingConfigSchema,
    limits: Type.Object(
      {
        token: Type.Optional(LimitSetSchema),
        account: Type.Optional(LimitSetSchema),
      },
      { additionalProperties: false, default: {} },
    ),
    billing: Type.Object(
      {
        holdTtlSeconds: Positive(3600, 'A hold not settled by then is released by the sweeper.'),
        // docs/decisions/0100: an account that cannot cover a call's whole output limit is sent
        // a lower one, down to this (never above what the call asked), before a 402. At least
        // 16: OpenAI's Responses API refuses a smaller max_output_tokens.
        minimumOutputTokens: Type.Integer({
          minimum: 16,
          default: 1_024,
          description:
            'The least output limit a call is lowered to when the balance cannot cover its own.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    // Stored responses for previous_response_id (docs/decisions/0012).
    responses: Type.Object(
      {
        retentionDays: Type.Integer({
          minimum: 1,
          maximum: 3650,
          default: 30,
          description: 'How long a stored response can be continued, from request preparation.',
        }),
        storeByDefault: Type.Boolean({
          default: true,
          description: 'What an absent `store` means; the dialect defaults to true.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    connected: ConnectedConfigSchema,
    // Typed evaluation (docs/evaluation.md): absent, the route does not exist.
    evaluation: Type.Optional(
      Type.Object(
        {
          modelId: Type.String({
            minLength: 1,
            description: 'The value clients send in the ai-model-id header.',
          }),
          judgeModel: Type.String({
            minLength: 1,
            description:
              'The catalog model (models[].id) that answers, through a forced tool call.',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    search: SearchConfigSchema,
    transcription: TranscriptionConfigSchema,
    images: ImagesConfigSchema,
    storage: StorageConfigSchema,
    compaction: Type.Object(
      {
        sealKeyEnv: Type.String({
          minLength: 1,
          default: 'SWITCHYARD_SEAL_KEY',
          description: 'Environment variable with the secret that seals compaction items.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
export type ProviderConfig = Static<typeof ProviderConfigSchema>;
/** A provider text models may be deployed on (load-config.ts refuses the others for them). */
export type TextProviderConfig = ProviderConfig & {
  kind: Exclude<ProviderConfig['kind'], 'openai-transcription'>;
};
export type ModelConfig = Static<typeof ModelConfigSchema>;
export type TokenizerName = Exclude<Static<typeof TokenizerSchema>, 'none'>;
export type LimitSet = Static<typeof LimitSetSchema>;
export type RoutingConfig = Static<typeof RoutingConfigSchema>;
export type UpstreamKeyConfig = Static<typeof UpstreamKeySchema>;
export type ConnectedConfig = Static<typeof ConnectedConfigSchema>;
