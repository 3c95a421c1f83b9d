/**
 * The types of image generation (docs/images.md) that the HTTP routes and the
 * MCP tools share: what a client sends, and what it gets back.
 */

export const imageResolutions = ['1K', '2K', '4K'] as const;
export type ImageResolution = (typeof imageResolutions)[number];

export const imageOutputFormats = ['png', 'jpg'] as const;
export type ImageOutputFormat = (typeof imageOutputFormats)[number];

/** Job states (docs/images.md): queued → running → succeeded | failed. */
export const imageJobStates = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ImageJobState = (typeof imageJobStates)[number];

/** A reference image as sent (docs/images.md): `data` is base64. */
export interface InputImage {
  name: string;
  media_type: string;
  data: string;
}

/** The body of POST /v1/images/generations with the extra fields docs/images.md names. */
export interface ImageGenerationRequest {
  model: string;
  prompt: string;
  /** `credits` when absent (docs/decisions/0116): the OpenAI SDKs cannot send it. */
  source?: string;
  aspect_ratio?: string;
  resolution?: ImageResolution;
  /** `jpeg` is OpenAI's word for `jpg`. */
  output_format?: ImageOutputFormat | 'jpeg';
  input_images?: InputImage[];
  /** Extra: how many images (default 1, at most the model's `maxImages`). */
  n?: number;
  /** Extra: one of the model's qualities (prices differ by quality). */
  quality?: string;
  /** Extra (docs/decisions/0072): the answer inlines each image as `b64_json`. */
  include_base64?: boolean;
  /** OpenAI's `WxH` (docs/decisions/0115): taken when the model makes exactly that size. */
  size?: string;
  /** OpenAI's choice between inlined bytes and a link (docs/decisions/0115). */
  response_format?: 'b64_json' | 'url';
}

/** One entry of OpenAI's `data[]`: the bytes inlined, or where to download them. */
export type OpenAiImageEntry = { b64_json: string } | { url: string };

/** The request after validation with every default filled in; what a job runs. */
export interface ImageJobParameters {
  prompt: string;
  aspectRatio: string;
  resolution: ImageResolution;
  outputFormat: ImageOutputFormat;
  quality: string | null;
  n: number;
}

/** One delivered image: a stored file (docs/api.md), downloaded with the same token. */
export interface GeneratedImage {
  id: string;
  content_type: string;
  size: number;
  sha256: string;
  /** GET this path on the gateway with the client token (never in the URL). */
  download_path: string;
  /** Only when asked for (`include_base64`). */
  b64_json?: string;
}

/** The one shape of a create answer (200 or 202) and of a poll. */
export interface ImageGeneration {
  id: string;
  object: 'image.generation';
  status: ImageJobState;
  model: string;
  /** Epoch seconds. */
  created_at: number;
  /** OpenAI's name for `created_at` (docs/decisions/0115). */
  created: number;
  finished_at: number | null;
  poll_path: string;
  /** Present once succeeded. */
  images?: GeneratedImage[];
  /** Present once succeeded: the same images in OpenAI's shape (docs/decisions/0115). */
  data?: OpenAiImageEntry[];
  /** Present once succeeded: what was charged. */
  usage?: { images: number; credits: number };
  /** Present once failed. */
  error?: { code: string; message: string };
}

/** What a create call comes to: 200 with a finished generation, or 202 with a running job. */
export interface ImageCreateOutcome {
  status: 200 | 202;
  generation: ImageGeneration;
  /** True when the Idempotency-Key had been used with this request before. */
  replayed: boolean;
}

/** One row of GET /v1/images/sources. */
export interface ImageSourceAvailability {
  source: string;
  available: boolean;
  /** Why not, when not available. */
  reason: string | null;
}

/** One row of GET /v1/images/models. */
export interface ImageModelListing {
  id: string;
  object: 'image.model';
  display_name: string;
  source: 'credits';
  /** `sync`: answers within one upstream call; `job`: submitted, then polled. */
  mode: 'sync' | 'job';
  aspect_ratios: string[];
  resolutions: ImageResolution[];
  output_formats: ImageOutputFormat[];
  qualities: string[] | null;
  default_quality: string | null;
  max_images: number;
  max_input_images: number;
  /** Credits per delivered image. */
  prices: Array<{ resolution: ImageResolution; quality: string | null; per_image: number }>;
}

/** A decoded, checked input image. */
export interface CheckedInputImage {
  name: string;
  mediaType: string;
  bytes: Buffer;
}
