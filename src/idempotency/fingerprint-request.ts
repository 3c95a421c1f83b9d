import { createHash } from 'node:crypto';

import { configure } from 'safe-stable-stringify';

/**
 * JSON with the members of every object sorted by key in UTF-16 code-unit order and every value
 * written as `JSON.stringify` writes it: the RFC 8785 canonical form of any value `JSON.parse`
 * can produce (RFC 8785 §3.2: ECMAScript number and string serialisation, members sorted by
 * their UTF-16 code units). A lone surrogate, which RFC 8785 refuses, is escaped as
 * `JSON.stringify` escapes it. Anything else (a cycle, a function, a non-finite number) throws.
 */
const canonicalJson = configure({
  deterministic: true,
  strict: true,
  bigint: false,
  circularValue: Error,
});

/**
 * What makes two requests under one key the same request: the operation, the
 * headers that shape the answer, and the body in canonical form, so member order and number
 * spelling (`1.0` vs `1`) do not matter while every value does (docs/decisions/0045).
 */
export function fingerprintRequest(request: {
  operation: string;
  headers: Record<string, string>;
  body: unknown;
}): string {
  const canonical = canonicalJson({
    operation: request.operation,
    headers: request.headers,
    body: request.body,
  });
  if (canonical === undefined) throw new TypeError('The request cannot be fingerprinted.');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
