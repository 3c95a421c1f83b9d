import packageJson from '../../../package.json' with { type: 'json' };
import type { GatewayFeature } from '../gateway-feature.ts';
import type { GatewayParts } from '../gateway-parts.ts';
import type { ImageService } from '../images/image-service.ts';
import type { ImageSources } from '../images/list-image-sources.ts';
import type { SearchRunner } from '../search/run-search.ts';
import { createDownloadImageTool } from './download-image-tool.ts';
import { createGenerateImageTool } from './generate-image-tool.ts';
import { createGetImageGenerationTool } from './get-image-generation-tool.ts';
import { createImageSourcesTool } from './image-sources-tool.ts';
import { createListImageModelsTool } from './list-image-models-tool.ts';
import { createListModelsTool } from './list-models-tool.ts';
import { mcpRoutes } from './mcp-routes.ts';
import type { McpTool } from './mcp-tool.ts';
import { planFailureLogLine } from '../../logging/plan-failure-log-line.ts';
import { McpToolbox } from './mcp-toolbox.ts';
import { createSearchTool } from './search-tool.ts';

/** The services the tools call; a tool whose service is not configured does not exist. */
export interface McpServices {
  search: SearchRunner | undefined;
  images: ImageService | undefined;
  /** Answers also without an `images` section, like GET /v1/images/sources. */
  imageSources: ImageSources;
}

/** Four of the image tools (docs/mcp.md), on the ImageService the image routes call. */
function imageTools(images: ImageService, publicBaseUrl: string | undefined): McpTool[] {
  return [
    createListImageModelsTool(images),
    createGenerateImageTool(images),
    createGetImageGenerationTool(images),
    createDownloadImageTool(images, { publicBaseUrl }),
  ];
}

/**
 * POST /mcp (docs/mcp.md). Each tool is one module that receives the service its
 * HTTP route calls; adding a tool is one line here.
 */
export function composeMcp(parts: GatewayParts, services: McpServices): GatewayFeature {
  const tools: McpTool[] = [
    createListModelsTool(parts.catalog),
    ...(services.search === undefined ? [] : [createSearchTool(services.search)]),
    createImageSourcesTool(services.imageSources),
    ...(services.images === undefined
      ? []
      : imageTools(services.images, parts.config.server.publicBaseUrl)),
  ];
  const toolbox = new McpToolbox({
    tools,
    serverInfo: { name: 'switchyard', version: packageJson.version },
    // The same lines as an HTTP route's failure (docs/decisions/0111), with the tool's name.
    logFailure: (error, answered, tool) => {
      const line = planFailureLogLine(error, answered);
      if (line === undefined) return;
      if (line.level === 'error') parts.logError(error, 'MCP tool failed', { tool });
      else parts.logEvent(line.level, line.message, { tool, ...line.fields });
    },
  });
  return {
    routes: [(app) => mcpRoutes(app, { authenticator: parts.authenticator, toolbox })],
  };
}
