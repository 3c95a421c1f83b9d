import { containsClientToken } from '../auth/find-client-token.ts';
import { ApiError } from '../canonical/generation-error.ts';

/**
 * A client token sent as an idempotency key (`Idempotency-Key`, a search `x-request-id`, an MCP
 * tool's key argument) is refused with 400, as a token in a body is (credential_in_body): a key
 * is kept for the replay window and echoed in errors, so a secret must never be one
 * (docs/decisions/0106).
 */
export function refuseClientTokenAsKey(key: string, keyHeader: string): void {
  if (!containsClientToken(key)) return;
  throw new ApiError(
    'invalid_header',
    `The ${keyHeader} carries a client token. A token is never an idempotency key: send it in the x-api-key or Authorization: Bearer header, and a random value as the key.`,
    { details: { param: keyHeader } },
  );
}
