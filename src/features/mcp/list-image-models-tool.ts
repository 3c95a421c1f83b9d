import { Type } from 'typebox';
import { imageModelsSchema } from '../images/image-schema.ts';
import type { ImageService } from '../images/image-service.ts';
import type { McpTool } from './mcp-tool.ts';

/** GET /v1/images/models's query: only the credits catalog exists for a client token. */
const listImageModelsInputSchema = Type.Object(
  {
    source: Type.Optional(
      Type.Literal('credits', {
        default: 'credits',
        description: 'The catalog to list; only `credits` is offered to a client token.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `list_image_models`: the image catalog GET /v1/images/models answers (docs/images.md). */
export function createListImageModelsTool(images: ImageService): McpTool {
  return {
    name: 'list_image_models',
    description:
      'Lists the image models with their aspect ratios, resolutions, output formats, qualities, limits and credits per image. Use an exact id from this list with generate_image.',
    annotations: {
      title: 'List image models',
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    permission: 'image:create',
    inputSchema: listImageModelsInputSchema,
    outputSchema: imageModelsSchema,
    async call(_input, context) {
      return { object: 'list', data: images.models(context.principal) };
    },
  };
}
