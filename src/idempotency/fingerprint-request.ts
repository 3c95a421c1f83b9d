import { createHash } from 'node:crypto';

import canonicalize from 'canonicalize';

/**
 * What makes two requests under one key the same request (issue 15): the operation, the headers
 * that shape the answer, and the body in RFC 8785 canonical form, so member order and number
 * spelling (`1.0` vs `1`) do not matter while every value does.
 */
export function fingerprintRequest(request: {
  operation: string;
  headers: Record<string, string>;
  body: unknown;
}): string {
  const canonical = canonicalize({
    operation: request.operation,
    headers: request.headers,
    body: request.body,
  });
  if (canonical === undefined) throw new TypeError('The request cannot be fingerprinted.');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
