import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { Type } from 'typebox';
import { ApiError } from '../../canonical/generation-error.ts';
import type { ImageService } from '../images/image-service.ts';
import { McpToolAnswer, type McpTool } from './mcp-tool.ts';

/**
 * Largest image answered inline as base64 (docs/decisions/0083): 3 MiB of bytes is 4 MiB of
 * base64, within what chat clients accept for one image. A larger one is a resource link.
 */
export const inlineImageMaxBytes = 3 * 1024 * 1024;

const downloadImageInputSchema = Type.Object(
  {
    asset_id: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The `id` of an image in a generation (asset_…).',
    }),
  },
  { additionalProperties: false },
);

const downloadImageOutputSchema = Type.Object(
  {
    id: Type.String(),
    content_type: Type.String(),
    size: Type.Integer({ minimum: 0 }),
    sha256: Type.String(),
    download_path: Type.String({
      description: 'GET with the same token in a header: /v1/storage/assets/{id}/content.',
    }),
    delivery: Type.Union([Type.Literal('inline'), Type.Literal('link')], {
      description: '`inline`: an image block carries the bytes; `link`: a resource link to them.',
    }),
  },
  { additionalProperties: false },
);

async function readAll(body: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * `download_image`: an image of this account's generations as an MCP image block (base64 and its
 * MIME type), or past `inlineImageMaxBytes` a resource link to its download URL. Another
 * account's id is 404 as unknown, like GET /v1/storage/assets/{id}/content.
 *
 * Links start with `server.publicBaseUrl` and nothing else (docs/decisions/0121): the client is
 * told to fetch them with its token, so a base taken from the request's Host header would send
 * the token wherever that header pointed. Without the setting a larger image is a tool error.
 */
export function createDownloadImageTool(
  images: ImageService,
  options: { publicBaseUrl: string | undefined },
): McpTool {
  const baseUrl = options.publicBaseUrl?.replace(/\/+$/, '');
  return {
    name: 'download_image',
    description: `Fetches a generated image by its asset id (from generate_image or get_image_generation) as an image block; an image over ${inlineImageMaxBytes} bytes ${baseUrl === undefined ? 'is not delivered here: download it from its download_path on this gateway' : 'comes as a link to download'} with the same token.`,
    annotations: {
      title: 'Download image',
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    permission: 'image:create',
    inputSchema: downloadImageInputSchema,
    outputSchema: downloadImageOutputSchema,
    async call(input, context) {
      const { asset_id: assetId } = input as { asset_id: string };
      const { asset, body } = await images.openImage(context.principal, assetId);
      if (!asset.contentType.startsWith('image/')) {
        body.destroy();
        throw new ApiError('invalid_request', `asset_id: ${assetId} is not an image.`, {
          details: { param: 'asset_id' },
        });
      }
      const downloadPath = `/v1/storage/assets/${asset.id}/content`;
      const inline = asset.size <= inlineImageMaxBytes;
      const answer = {
        id: asset.id,
        content_type: asset.contentType,
        size: asset.size,
        sha256: asset.sha256,
        download_path: downloadPath,
        delivery: inline ? 'inline' : 'link',
      };
      const summary: ContentBlock = { type: 'text', text: JSON.stringify(answer) };
      if (inline) {
        const bytes = await readAll(body);
        return new McpToolAnswer(answer, [
          { type: 'image', data: bytes.toString('base64'), mimeType: asset.contentType },
          summary,
        ]);
      }
      body.destroy();
      if (baseUrl === undefined) {
        throw new ApiError(
          'invalid_request',
          `The image is ${asset.size} bytes, over the ${inlineImageMaxBytes} answered inline, and no public URL of the gateway is configured to link to (the operator can set server.publicBaseUrl). Download it over HTTP: GET ${downloadPath} on this gateway with the same token in the Authorization header.`,
          { details: { param: 'asset_id' } },
        );
      }
      return new McpToolAnswer(answer, [
        {
          type: 'resource_link',
          uri: `${baseUrl}${downloadPath}`,
          name: asset.name,
          mimeType: asset.contentType,
          size: asset.size,
          description:
            'GET with the same token in the Authorization header (never in the URL); the bytes hash to the sha256 given.',
        },
        summary,
      ]);
    },
  };
}
