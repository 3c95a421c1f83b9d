import { Type, type TSchema } from 'typebox';

import { imageJobStates } from './image-types.ts';

/** The image contract (docs/images.md) as JSON Schema: validation and /openapi.json. */
export const imageLimits = {
  inputImages: 8,
  key: { min: 1, max: 255, pattern: /^[\x21-\x7e]+$/ },
} as const;

const resolution = Type.Union([Type.Literal('1K'), Type.Literal('2K'), Type.Literal('4K')]);
const outputFormat = Type.Union([Type.Literal('png'), Type.Literal('jpg')]);

/**
 * The contract allows extra fields; the gateway knows three (`n`, `quality`, `include_base64`) and
 * refuses any other with 400 rather than ignore it (docs/api.md).
 */
export const imageRequestProperties = {
  model: Type.String({ minLength: 1, description: 'Exact id from GET /v1/images/models.' }),
  prompt: Type.String({
    minLength: 1,
    maxLength: 32_000,
    description: 'What the image should show, in words.',
  }),
  source: Type.Optional(
    Type.String({
      description:
        'Must be `credits` for a client token; `credits` when absent (docs/decisions/0116).',
    }),
  ),
  aspect_ratio: Type.Optional(
    Type.String({ minLength: 1, default: 'auto', description: '`auto` or `W:H`, e.g. `16:9`.' }),
  ),
  resolution: Type.Optional({
    ...resolution,
    default: '1K',
    description: 'One of the model’s resolutions (GET /v1/images/models); the price depends on it.',
  }),
  output_format: Type.Optional(
    Type.Union([...outputFormat.anyOf, Type.Literal('jpeg')], {
      default: 'png',
      description:
        'File format of the result images: `png` or `jpg` (`jpeg` is the same as `jpg`).',
    }),
  ),
  input_images: Type.Optional(
    Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, description: 'A file name, e.g. `sketch.png`.' }),
          media_type: Type.String({ description: 'image/png, image/jpeg or image/webp.' }),
          data: Type.String({ description: 'Standard base64 of the image bytes.' }),
        },
        { additionalProperties: false },
      ),
      {
        maxItems: imageLimits.inputImages,
        description:
          'Reference images, for a model that takes them (its `max_input_images`); each is stored as a file.',
      },
    ),
  ),
  n: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 10, default: 1, description: 'Number of images.' }),
  ),
  quality: Type.Optional(
    Type.String({ minLength: 1, description: 'One of the model’s qualities (its price).' }),
  ),
  include_base64: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Inline each finished image as `b64_json` (docs/decisions/0072).',
    }),
  ),
};

/**
 * OpenAI's image request fields that the gateway can honour exactly (docs/decisions/0115), so
 * the OpenAI SDKs work unchanged. Only the HTTP route takes them; the MCP tool keeps its own.
 */
export const openAiImageRequestProperties = {
  size: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 20,
      description:
        'OpenAI’s `WxH` (or `auto`): taken when the model makes exactly that size, else 400.',
    }),
  ),
  response_format: Type.Optional(
    Type.Union([Type.Literal('b64_json'), Type.Literal('url')], {
      description:
        '`b64_json` inlines each image in `data[]` (as `include_base64`); `url` lists download URLs.',
    }),
  ),
};

export const imageRequestSchema: TSchema = Type.Object(
  { ...imageRequestProperties, ...openAiImageRequestProperties },
  { additionalProperties: false },
);

export const imageGenerationSchema: TSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('image.generation'),
  status: Type.Union(imageJobStates.map((state) => Type.Literal(state))),
  model: Type.String(),
  created_at: Type.Integer(),
  created: Type.Integer({ description: 'OpenAI’s name for `created_at` (epoch seconds).' }),
  finished_at: Type.Union([Type.Integer(), Type.Null()]),
  poll_path: Type.String(),
  images: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String(),
        content_type: Type.String(),
        size: Type.Integer({ minimum: 0 }),
        sha256: Type.String(),
        download_path: Type.String({
          description: 'GET with the same token in a header: /v1/storage/assets/{id}/content.',
        }),
        b64_json: Type.Optional(Type.String()),
      }),
    ),
  ),
  data: Type.Optional(
    Type.Array(
      Type.Union([
        Type.Object({ b64_json: Type.String() }),
        Type.Object({
          url: Type.String({
            description: 'The download URL; GET it with the same token in a header.',
          }),
        }),
      ]),
      {
        description:
          'Once succeeded: the images in OpenAI’s shape (docs/decisions/0115), `b64_json` when inlined, else `url`.',
      },
    ),
  ),
  usage: Type.Optional(Type.Object({ images: Type.Integer(), credits: Type.Number() })),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});

export const imageHeadersSchema: TSchema = Type.Object({
  'idempotency-key': Type.String({
    minLength: imageLimits.key.min,
    maxLength: imageLimits.key.max,
    description:
      'Required. The same key with the same body answers the same generation; with another body → 409.',
  }),
});

export const imageSourcesSchema: TSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(
    Type.Object({
      source: Type.String(),
      available: Type.Boolean(),
      reason: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

export const imageModelsQuerySchema: TSchema = Type.Object(
  { source: Type.Optional(Type.Literal('credits', { default: 'credits' })) },
  { additionalProperties: false },
);

const price = Type.Object({
  resolution,
  quality: Type.Union([Type.String(), Type.Null()]),
  per_image: Type.Number({ description: 'Credits per delivered image.' }),
});

export const imageModelsSchema: TSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(
    Type.Object({
      id: Type.String(),
      object: Type.Literal('image.model'),
      display_name: Type.String(),
      source: Type.Literal('credits'),
      mode: Type.Union([Type.Literal('sync'), Type.Literal('job')]),
      aspect_ratios: Type.Array(Type.String()),
      resolutions: Type.Array(resolution),
      output_formats: Type.Array(outputFormat),
      qualities: Type.Union([Type.Array(Type.String()), Type.Null()]),
      default_quality: Type.Union([Type.String(), Type.Null()]),
      max_images: Type.Integer(),
      max_input_images: Type.Integer(),
      prices: Type.Array(price),
    }),
  ),
});

export const imageJobParamsSchema: TSchema = Type.Object({
  job_id: Type.String({ minLength: 1, maxLength: 100 }),
});

export const imageJobQuerySchema: TSchema = Type.Object(
  {
    // Query values are strings; the validator does not coerce (bodies must stay as sent).
    include_base64: Type.Optional(
      Type.String({
        pattern: '^(?:true|false)$',
        default: 'false',
        description: '`true` inlines each finished image as `b64_json` (docs/decisions/0072).',
      }),
    ),
  },
  { additionalProperties: false },
);
