import { microPerCredit } from '../../billing/micro-credits.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type {
  ImageModelConfig,
  ImageProviderConfig,
  ImagesConfig,
} from '../../config/images-config-schema.ts';
import { bflAdapter } from './bfl-adapter.ts';
import type { ImageProviderAdapter } from './image-provider-adapter.ts';
import type {
  ImageGenerationRequest,
  ImageJobParameters,
  ImageModelListing,
  ImageResolution,
} from './image-types.ts';
import { openaiImagesAdapter } from './openai-images-adapter.ts';

export const imageAdapters: Record<ImageProviderConfig['kind'], ImageProviderAdapter> = {
  'openai-images': openaiImagesAdapter,
  bfl: bflAdapter,
};

/** A catalog model with what a job needs to run it. */
export interface ImageCatalogModel {
  config: ImageModelConfig;
  adapter: ImageProviderAdapter;
  /** The provider of each deployment, in order. */
  providers: ImageProviderConfig[];
}

function invalid(param: string, message: string): ApiError {
  return new ApiError('invalid_request', `${param}: ${message}`, { details: { param } });
}

/**
 * The image catalog (docs/images.md): models, their options and per-image prices, and the check of
 * a request against both the model's offer and its provider kind. What either cannot do is a 400
 * naming the field (docs/api.md: never ignored).
 */
export class ImageCatalog {
  readonly #models = new Map<string, ImageCatalogModel>();

  constructor(config: ImagesConfig, adapters = imageAdapters) {
    const providers = new Map(config.providers.map((provider) => [provider.id, provider]));
    for (const model of config.models) {
      const deploymentProviders = model.deployments.map(
        (deployment) => providers.get(deployment.provider) as ImageProviderConfig,
      );
      const kind = (deploymentProviders[0] as ImageProviderConfig).kind;
      // A model listed with more reference images than its wire format carries would refuse
      // requests its listing invites: the gateway does not start with it.
      const adapter = adapters[kind];
      if (model.maxInputImages > adapter.maxInputImages) {
        throw new Error(
          `images.models "${model.id}".maxInputImages: ${model.maxInputImages} is more than the ${kind} kind takes (${adapter.maxInputImages})`,
        );
      }
      this.#models.set(model.id, {
        config: model,
        adapter,
        providers: deploymentProviders,
      });
    }
  }

  get(modelId: string): ImageCatalogModel | undefined {
    return this.#models.get(modelId);
  }

  list(): ImageModelListing[] {
    return [...this.#models.values()].map(({ config, adapter }) => ({
      id: config.id,
      object: 'image.model',
      display_name: config.displayName ?? config.id,
      source: 'credits',
      mode: adapter.mode,
      aspect_ratios: config.aspectRatios,
      resolutions: config.resolutions,
      output_formats: config.outputFormats,
      qualities: config.qualities ?? null,
      default_quality: config.defaultQuality ?? null,
      max_images: config.maxImages,
      max_input_images: config.maxInputImages,
      prices: config.prices.map((price) => ({
        resolution: price.resolution,
        quality: price.quality ?? null,
        per_image: price.perImage,
      })),
    }));
  }

  /** The request with its defaults, checked against the model and its provider kind. */
  resolve(request: ImageGenerationRequest): {
    model: ImageCatalogModel;
    parameters: ImageJobParameters;
    pricePerImage: number;
  } {
    const model = this.#models.get(request.model);
    if (model === undefined) {
      throw new ApiError(
        'unknown_model',
        `Unknown image model "${request.model}". Call GET /v1/images/models?source=credits and use an exact id from it.`,
        { details: { param: 'model' } },
      );
    }
    const { config } = model;
    const sized = request.size === undefined ? undefined : this.#fromSize(model, request);
    const parameters: ImageJobParameters = {
      prompt: request.prompt,
      aspectRatio: sized?.aspectRatio ?? request.aspect_ratio ?? 'auto',
      resolution: sized?.resolution ?? request.resolution ?? '1K',
      outputFormat: request.output_format === 'jpeg' ? 'jpg' : (request.output_format ?? 'png'),
      quality: request.quality ?? config.defaultQuality ?? null,
      n: request.n ?? 1,
    };
    if (!config.aspectRatios.includes(parameters.aspectRatio))
      throw invalid('aspect_ratio', `${config.id} offers ${config.aspectRatios.join(', ')}`);
    if (!config.resolutions.includes(parameters.resolution))
      throw invalid('resolution', `${config.id} offers ${config.resolutions.join(', ')}`);
    if (!config.outputFormats.includes(parameters.outputFormat))
      throw invalid('output_format', `${config.id} offers ${config.outputFormats.join(', ')}`);
    if (request.quality !== undefined && config.qualities === undefined)
      throw invalid('quality', `${config.id} has no quality setting`);
    if (parameters.quality !== null && !config.qualities?.includes(parameters.quality))
      throw invalid('quality', `${config.id} offers ${config.qualities?.join(', ')}`);
    if (parameters.n > config.maxImages)
      throw invalid('n', `${config.id} generates at most ${config.maxImages} per request`);
    const inputImages = request.input_images?.length ?? 0;
    if (inputImages > config.maxInputImages)
      throw invalid(
        'input_images',
        config.maxInputImages === 0
          ? `${config.id} takes no reference images`
          : `${config.id} takes at most ${config.maxInputImages}`,
      );
    const issue = model.adapter.checkParameters(parameters, inputImages)[0];
    if (issue !== undefined) throw invalid(issue.param, issue.message);
    const price = config.prices.find(
      (candidate) =>
        candidate.resolution === parameters.resolution &&
        (candidate.quality ?? null) === parameters.quality,
    );
    if (price === undefined) throw new ApiError('internal', `${config.id} has no price for this`);
    return { model, parameters, pricePerImage: Math.round(price.perImage * microPerCredit) };
  }

  /**
   * OpenAI's `size` (docs/decisions/0115): the model's aspect ratio and resolution for which its
   * provider kind asks for exactly those pixels. `aspect_ratio` and `resolution`, when also
   * sent, must agree with it.
   */
  #fromSize(
    model: ImageCatalogModel,
    request: ImageGenerationRequest,
  ): { aspectRatio: string; resolution: ImageResolution } {
    const { config, adapter } = model;
    const offered: string[] = [];
    for (const aspectRatio of config.aspectRatios) {
      for (const resolution of config.resolutions) {
        const size = adapter.exactSize(aspectRatio, resolution);
        if (size === undefined) continue;
        offered.push(size);
        if (size !== request.size) continue;
        if (request.aspect_ratio !== undefined && request.aspect_ratio !== aspectRatio)
          throw invalid('aspect_ratio', `disagrees with size ${size} (${aspectRatio})`);
        if (request.resolution !== undefined && request.resolution !== resolution)
          throw invalid('resolution', `disagrees with size ${size} (${resolution})`);
        return { aspectRatio, resolution };
      }
    }
    throw invalid(
      'size',
      offered.length === 0
        ? `${config.id} takes aspect_ratio and resolution, not an exact size`
        : `${config.id} offers ${offered.join(', ')}`,
    );
  }
}
