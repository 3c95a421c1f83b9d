import { Type } from 'typebox';
import { imageGenerationSchema } from '../images/image-schema.ts';
import type { ImageService } from '../images/image-service.ts';
import type { McpTool } from './mcp-tool.ts';

const getImageGenerationInputSchema = Type.Object(
  {
    job_id: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The `id` generate_image answered (imggen_…).',
    }),
  },
  { additionalProperties: false },
);

/**
 * `get_image_generation`: GET /v1/images/generations/{job_id} (docs/images.md) — the job's present
 * state; another account's job is 404 as unknown, and 410 once its images were deleted.
 */
export function createGetImageGenerationTool(images: ImageService): McpTool {
  return {
    name: 'get_image_generation',
    description:
      'Answers an image generation by its id: queued or running (ask again in a few seconds), succeeded with its images (fetch each with download_image and its id), or failed with the reason.',
    annotations: {
      title: 'Get image generation',
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    permission: 'image:create',
    inputSchema: getImageGenerationInputSchema,
    outputSchema: imageGenerationSchema,
    async call(input, context) {
      const { job_id: jobId } = input as { job_id: string };
      return { ...(await images.get(context.principal, jobId)) };
    },
  };
}
