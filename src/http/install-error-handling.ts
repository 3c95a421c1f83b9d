import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../canonical/generation-error.ts';
import {
  DEPENDENCY_RETRY_AFTER_SECONDS,
  isDependencyUnavailable,
} from '../shared/is-dependency-unavailable.ts';
import { planFailureLogLine } from '../logging/plan-failure-log-line.ts';
import { errorShapeForUrl } from './error-shape.ts';
import { sendError } from './send-error.ts';

/** Fastify's default `maxParamLength`: a longer path parameter is refused by the router. */
export const maxPathParameterLength = 100;

/** Maps Fastify's own failures (parsing, validation, limits) onto the error catalogue. */
export function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation !== undefined) {
    const context = error.validationContext ?? 'body';
    const problems = error.validation.map((issue) => {
      const where = `${context}${issue.instancePath.replaceAll('/', '.')}`;
      const params = issue.params as Record<string, unknown>;
      if (issue.keyword === 'required')
        return `${where}.${String(params.missingProperty)} is required`;
      if (issue.keyword === 'discriminator') {
        // A tagged union (evaluation questions): name the tag, not Ajv's `oneOf`.
        return `${where}.${String(params.tag)} ${JSON.stringify(params.tagValue)} is not a known kind`;
      }
      if (issue.keyword === 'additionalProperties') {
        return `${where}.${String(params.additionalProperty)} is not allowed`;
      }
      return `${where} ${issue.message ?? 'is invalid'}`;
    });
    return new ApiError('invalid_request', `Invalid request: ${problems.join('; ')}.`);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('request_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        'unsupported_media_type',
        'Unsupported content type; send the body as application/json.',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'The JSON body is empty.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_json', `Malformed JSON body: ${error.message}`);
    case 'FST_ERR_BAD_URL':
      return new ApiError(
        'invalid_request',
        'The URL path is not valid: a percent sign must start a %XX escape of UTF-8 bytes.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(
        'invalid_request',
        `A path segment is longer than ${maxPathParameterLength} characters.`,
        { status: 414 },
      );
    default:
      break;
  }
  if (error instanceof SyntaxError)
    return new ApiError('invalid_json', `Malformed JSON body: ${error.message}`);
  if (error.statusCode === 413) return new ApiError('request_too_large');
  if (error.statusCode === 415) return new ApiError('unsupported_media_type');
  // Any other client error the framework or a plugin raises (a multipart part limit, 406 from
  // the multipart plugin) is the client's: 400 in the catalogue's shape, never a 500.
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    return new ApiError('invalid_request', error.message);
  return toDependencyError(error) ?? new ApiError('internal');
}

/** A store the request needs is down → 503 `not_ready`, never free (docs/decisions/0021). */
export function toDependencyError(error: unknown): ApiError | undefined {
  if (!isDependencyUnavailable(error)) return undefined;
  return new ApiError(
    'not_ready',
    'A store this request needs is unreachable; retry with a delay.',
    { retryAfter: DEPENDENCY_RETRY_AFTER_SECONDS },
  );
}

/**
 * Fastify's `frameworkErrors`: errors its router raises before any hook runs (a malformed
 * percent-encoding, an over-long path parameter), answered in the route family's shape rather
 * than the framework's own.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header('request-id', request.id);
  reply.header('x-request-id', request.id);
  sendError(reply, toApiError(error).toGenerationError(), errorShapeForUrl(request.url));
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    const line = planFailureLogLine(error, apiError);
    if (line !== undefined) request.log[line.level](line.fields, line.message);
    return sendError(reply, apiError.toGenerationError(), errorShapeForUrl(request.url));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new ApiError(
      'not_found',
      `No route ${request.method} ${request.url.split('?')[0]}.`,
    );
    return sendError(reply, error.toGenerationError(), errorShapeForUrl(request.url));
  });
}
