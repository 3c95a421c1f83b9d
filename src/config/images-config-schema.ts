import { Type, type Static } from 'typebox';

const Positive = (defaultValue: number, description: string) =>
  Type.Integer({ minimum: 1, default: defaultValue, description });

/** One image upstream; docs/images.md describes each kind's wire format. */
export const ImageProviderConfigSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'Named by model deployments and in logs.' }),
    kind: Type.Union([Type.Literal('openai-images'), Type.Literal('bfl')], {
      description:
        'openai-images: POST /v1/images/generations answering b64_json (synchronous); bfl: POST /v1/<model> → {id, polling_url}, polled until Ready, then the sample is fetched (job-style).',
    }),
    baseUrl: Type.String({ minLength: 1, description: 'e.g. https://api.openai.com' }),
    apiKeyEnv: Type.Optional(
      Type.String({ minLength: 1, description: 'Name of the environment variable with the key.' }),
    ),
    fetchOrigins: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Further origins (scheme://host[:port]) the gateway may poll or download results from, besides baseUrl (bfl answers with polling and sample URLs on regional hosts).',
    }),
    connectTimeoutMs: Positive(5_000, 'TCP/TLS connect timeout.'),
    firstByteTimeoutMs: Positive(
      120_000,
      'Time from the send to the response headers (a synchronous generation takes a while).',
    ),
    idleTimeoutMs: Positive(60_000, 'Longest silence between two body chunks.'),
    maxConnections: Positive(16, 'Keep-alive pool size of this provider.'),
    concurrency: Positive(8, 'Jobs of this provider that one gateway process runs at once.'),
    pollIntervalMs: Positive(1_000, 'Pause between two polls of a job-style upstream.'),
  },
  { additionalProperties: false },
);

const ImagePriceSchema = Type.Object(
  {
    resolution: Type.Union([Type.Literal('1K'), Type.Literal('2K'), Type.Literal('4K')]),
    quality: Type.Optional(Type.String({ minLength: 1 })),
    perImage: Type.Number({ minimum: 0, description: 'Credits per delivered image.' }),
  },
  { additionalProperties: false },
);

/** One image model of the catalog (docs/images.md). */
export const ImageModelConfigSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'The id clients send as `model`.' }),
    displayName: Type.Optional(Type.String({ minLength: 1 })),
    deployments: Type.Array(
      Type.Object(
        {
          provider: Type.String({ minLength: 1, description: 'An images.providers[].id.' }),
          upstreamModel: Type.String({ minLength: 1 }),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        description:
          'Tried in order until one accepts the request; all of one model share a provider kind.',
      },
    ),
    aspectRatios: Type.Array(Type.String({ pattern: '^(auto|[1-9][0-9]?:[1-9][0-9]?)$' }), {
      minItems: 1,
      default: ['auto', '1:1'],
    }),
    resolutions: Type.Array(
      Type.Union([Type.Literal('1K'), Type.Literal('2K'), Type.Literal('4K')]),
      { minItems: 1, default: ['1K'] },
    ),
    outputFormats: Type.Array(Type.Union([Type.Literal('png'), Type.Literal('jpg')]), {
      minItems: 1,
      default: ['png', 'jpg'],
    }),
    qualities: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'Values of the request field `quality`; absent, the field is refused.',
      }),
    ),
    defaultQuality: Type.Optional(Type.String({ minLength: 1 })),
    maxImages: Type.Integer({
      minimum: 1,
      maximum: 10,
      default: 1,
      description: 'Largest `n` one request may ask for.',
    }),
    maxInputImages: Type.Integer({
      minimum: 0,
      maximum: 8,
      default: 0,
      description: 'Reference images the model takes (`input_images`); 0 refuses the field.',
    }),
    prices: Type.Array(ImagePriceSchema, {
      minItems: 1,
      description: 'One price per resolution (and quality, when the model has qualities).',
    }),
  },
  { additionalProperties: false },
);

/** Image generation (docs/images.md): absent, the image routes do not exist. */
export const ImagesConfigSchema = Type.Optional(
  Type.Object(
    {
      providers: Type.Array(ImageProviderConfigSchema, { minItems: 1 }),
      models: Type.Array(ImageModelConfigSchema, { minItems: 1 }),
      syncWaitMs: Type.Integer({
        minimum: 0,
        maximum: 300_000,
        default: 20_000,
        description:
          'How long POST /v1/images/generations waits for the result before answering 202 with a job.',
      }),
      jobTimeoutSeconds: Positive(
        600,
        'A job not finished this long after it was created fails and its hold is released.',
      ),
      leaseSeconds: Positive(
        30,
        'How long a worker owns a running job without renewing; a crashed worker’s jobs are taken over after it.',
      ),
      replayWindowSeconds: Positive(
        86_400,
        'How long a create call is answered again under its Idempotency-Key (and 410 once its images are deleted).',
      ),
      maxInputImageBytes: Positive(10 * 1024 * 1024, 'Largest decoded input image.'),
      maxResultImageBytes: Positive(
        50 * 1024 * 1024,
        'Largest image read from an upstream; reserved per image against the storage quota before the upstream call (docs/decisions/0117).',
      ),
    },
    { additionalProperties: false },
  ),
);

export type ImagesConfig = NonNullable<Static<typeof ImagesConfigSchema>>;
export type ImageProviderConfig = Static<typeof ImageProviderConfigSchema>;
export type ImageModelConfig = Static<typeof ImageModelConfigSchema>;
