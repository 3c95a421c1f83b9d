import { Type } from 'typebox';
import { imageSourcesSchema } from '../images/image-schema.ts';
import type { ImageSources } from '../images/list-image-sources.ts';
import type { McpTool } from './mcp-tool.ts';

/**
 * `image_sources`: what GET /v1/images/sources answers (docs/images.md), with its permission. Like
 * the route it exists without an `images` section, to say that image generation is not
 * configured.
 */
export function createImageSourcesTool(sources: ImageSources): McpTool {
  return {
    name: 'image_sources',
    description:
      'Lists the image generation sources and whether this token can use each now, with the reason when not (credits: image generation must be configured and the balance not empty). Generate with source "credits".',
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
      return { object: 'list', data: await sources(context.principal) };
    },
  };
}
