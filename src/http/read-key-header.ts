import type { FastifyRequest } from 'fastify';

import { ApiError } from '../canonical/generation-error.ts';
import { refuseClientTokenAsKey } from '../idempotency/refuse-client-token-as-key.ts';

/** What a key header (an Idempotency-Key, a search x-request-id) may hold. */
export interface KeyHeaderRule {
  min: number;
  max: number;
  pattern: RegExp;
}

/** How a 400 names the characters a rule allows. */
function describeCharacters(pattern: RegExp): string {
  return pattern.source === '^[\\x21-\\x7e]+$'
    ? 'visible ASCII characters'
    : 'characters of letters, digits and . _ : -';
}

/**
 * A key header, checked before the body is read (the evaluation, search, image and transcription
 * routes): 400 `invalid_header` naming the header and its rule when it is malformed, or missing
 * while required, or when it carries a client token. Undefined when an optional header is absent.
 */
export function readKeyHeader(
  request: FastifyRequest,
  name: string,
  rule: KeyHeaderRule,
  options: { required: true },
): string;
export function readKeyHeader(
  request: FastifyRequest,
  name: string,
  rule: KeyHeaderRule,
  options: { required: false },
): string | undefined;
export function readKeyHeader(
  request: FastifyRequest,
  name: string,
  rule: KeyHeaderRule,
  options: { required: boolean },
): string | undefined {
  const value = request.headers[name.toLowerCase()];
  if (value === undefined && !options.required) return undefined;
  const { min, max, pattern } = rule;
  if (
    typeof value === 'string' &&
    value.length >= min &&
    value.length <= max &&
    pattern.test(value)
  ) {
    // Before the body is read: a key that is a token is refused without reading an upload.
    refuseClientTokenAsKey(value, name);
    return value;
  }
  throw new ApiError(
    'invalid_header',
    `Invalid header ${name}: ${options.required ? 'required, ' : ''}${min} to ${max} ${describeCharacters(pattern)}.`,
    { details: { param: name } },
  );
}
