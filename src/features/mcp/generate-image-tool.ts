import { Type } from 'typebox';
import {
  imageGenerationSchema,
  imageLimits,
  imageRequestProperties,
} from '../images/image-schema.ts';
import type { ImageService } from '../images/image-service.ts';
import type { ImageGenerationRequest } from '../images/image-types.ts';
import type { McpTool } from './mcp-tool.ts';

// The answer never inlines images here: download_image delivers each as an image block.
const { include_base64: _inline, ...requestProperties } = imageRequestProperties;

/**
 * The body of POST /v1/images/generations (docs/images.md) without `include_base64`, and its
 * Idempotency-Key header as a required argument (docs/decisions/0082).
 */
const generateImageInputSchema = Type.Object(
  {
    ...requestProperties,
    source: Type.Literal('credits', {
      description: 'Paid from the credits balance; the only source for a client token.',
    }),
    idempotency_key: Type.String({
      minLength: imageLimits.key.min,
      maxLength: imageLimits.key.max,
      pattern: imageLimits.key.pattern.source,
      description:
        'Required, as the Idempotency-Key header of POST /v1/images/generations: make a new one for each new image request and send the same one to retry it. The same key with the same arguments answers the same generation without a second charge; with other arguments the call fails.',
    }),
  },
  { additionalProperties: false },
);

type GenerateImageInput = Omit<ImageGenerationRequest, 'include_base64'> & {
  idempotency_key: string;
};

/**
 * `generate_image`: ImageService.create behind POST /v1/images/generations (docs/images.md) —
 * the same catalog check, worst-case hold (402), request limits, job and replay under a key.
 */
export function createGenerateImageTool(images: ImageService): McpTool {
  return {
    name: 'generate_image',
    description:
      'Generates images from a prompt with a model from list_image_models, paid from the credits balance. Answers the generation: succeeded with its images (fetch each with download_image and its id), or queued/running — then call get_image_generation with its id until it finishes.',
    annotations: {
      title: 'Generate image',
      readOnlyHint: false,
      destructiveHint: false,
      // A key is required, and a repeat under it answers the same generation.
      idempotentHint: true,
      openWorldHint: true,
    },
    permission: 'image:create',
    inputSchema: generateImageInputSchema,
    outputSchema: imageGenerationSchema,
    async call(input, context) {
      const { idempotency_key: key, ...request } = input as GenerateImageInput;
      const outcome = await images.create(context.principal, request, key);
      return { ...outcome.generation };
    },
  };
}
