import { Type } from 'typebox';
import { imageSourcesSchema } from '../images/image-schema.ts';
import type { ImageService } from '../images/image-service.ts';
import type { McpTool } from './mcp-tool.ts';

/** `image_sources`: what GET /v1/images/sources answers (docs/images.md), with its permission. */
export function createImageSourcesTool(images: ImageService): McpTool {
  return {
    name: 'image_sources',
    description:
      'Lists the image generation sources and whether this token can use each now (credits: the balance must not be empty). Generate with source "credits".',
    annotations: {
      title: 'Image sources',
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    permission: 'image:create',
    inputSchema: Type.Object({}, { additionalProperties: false }),
    outputSchema: imageSourcesSchema,
    async call(_input, context) {
      return { object: 'list', data: await images.sources(context.principal) };
    },
  };
}
