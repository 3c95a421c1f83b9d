/**
 * One catalogue of error codes → status → message (docs/api.md), in one place. Surfaces render an
 * entry in shape A (`{error:{type,message,code}}`) or shape B (`{type:"error",error:{type,message}}`).
 * `type` is the dialect-neutral error type both shapes carry; message-style clients map their
 * behaviour on it (docs/clients.md: 401 authentication_error, 429 rate_limit_error, ...).
 */
export const errorCatalogue = {
  invalid_request: { status: 400, type: 'invalid_request_error', message: 'Invalid request.' },
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'Malformed JSON body.' },
  unrepresentable_field: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The request has fields that the selected route cannot represent.',
  },
  unsupported_capability: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The selected model does not support a feature this request uses.',
  },
  unknown_model: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Unknown model. Call GET /v1/models and use an exact model id from it.',
  },
  wrong_interface: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This token is bound to another interface and cannot be used on this route.',
  },
  credential_in_query: {
    status: 400,
    type: 'invalid_request_error',
    message:
      'Credentials are not accepted in the URL. Send the token in the x-api-key or Authorization: Bearer header.',
  },
  credential_in_body: {
    status: 400,
    type: 'invalid_request_error',
    message:
      'The body carries a client token. A token is never sent in a body (it would reach the provider); send it in the x-api-key or Authorization: Bearer header.',
  },
  json_too_deep: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The JSON body is nested too deeply.',
  },
  previous_response_not_found: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The previous response was not found.',
  },
  // docs/transcription.md: only RIFF/WAVE audio is accepted.
  unsupported_audio_format: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The file is not a WAV (RIFF/WAVE) file; only WAV audio is accepted.',
  },
  invalid_audio: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The WAV header is truncated or inconsistent.',
  },
  invalid_header: { status: 400, type: 'invalid_request_error', message: 'Invalid header value.' },
  counting_not_supported: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Token counting is not supported for this model.',
  },
  missing_token: {
    status: 401,
    type: 'authentication_error',
    message: 'Missing token. Send it in the x-api-key or Authorization: Bearer header.',
  },
  malformed_token: {
    status: 401,
    type: 'authentication_error',
    message: 'Malformed token. Switchyard tokens start with "sy_" and carry a checksum.',
  },
  invalid_token: { status: 401, type: 'authentication_error', message: 'Invalid token.' },
  disabled_token: { status: 401, type: 'authentication_error', message: 'This token is disabled.' },
  expired_token: { status: 401, type: 'authentication_error', message: 'This token has expired.' },
  permission_denied: {
    status: 401,
    type: 'authentication_error',
    message: 'This token lacks the permission this route needs.',
  },
  model_not_allowed: {
    status: 401,
    type: 'authentication_error',
    message: 'This token may not use the requested model.',
  },
  admin_unauthorized: {
    status: 401,
    type: 'authentication_error',
    message: 'Missing or invalid admin credential.',
  },
  // docs/decisions/0168: the dashboard's own errors carry their code as `type`, which its pages
  // read; only a session cookie opens /api/dashboard, never a token.
  dashboard_unauthorized: {
    status: 401,
    type: 'dashboard_unauthorized',
    message: 'Not signed in to the dashboard: sign in with a link from the operator.',
  },
  dashboard_sign_in_failed: {
    status: 401,
    type: 'dashboard_sign_in_failed',
    message: 'This sign-in link is unknown, used or expired; ask the operator for a new one.',
  },
  csrf_failed: {
    status: 403,
    type: 'csrf_failed',
    message:
      "The request lacks the session's x-csrf-token header or comes from another origin; nothing was changed.",
  },
  dashboard_forbidden: {
    status: 403,
    type: 'dashboard_forbidden',
    message: 'Only operator accounts may use this.',
  },
  insufficient_credits: {
    status: 402,
    type: 'billing_error',
    message: 'The credits balance cannot cover this request.',
  },
  // docs/decisions/0101: the balance would cover the request, but requests in flight reserve it.
  credits_reserved: {
    status: 402,
    type: 'billing_error',
    message:
      'The credits balance is reserved by requests in flight; retry once they finish (retry-after).',
  },
  // docs/decisions/0166: the token's own spend budget, not the account's balance, stands in the way.
  budget_exceeded: {
    status: 402,
    type: 'billing_error',
    message: "This token's spend budget for the period is reached.",
  },
  not_found: { status: 404, type: 'not_found_error', message: 'Not found.' },
  method_not_allowed: {
    status: 405,
    type: 'invalid_request_error',
    message: 'Method not allowed.',
  },
  conflict: { status: 409, type: 'invalid_request_error', message: 'Conflict.' },
  request_timeout: {
    status: 408,
    type: 'timeout_error',
    message: 'The request did not arrive in time; the connection is closed.',
  },
  idempotency_key_reused: {
    status: 409,
    type: 'invalid_request_error',
    message: 'This Idempotency-Key was already used with a different request.',
  },
  idempotency_in_progress: {
    status: 409,
    type: 'invalid_request_error',
    message: 'A request with this Idempotency-Key is still running; retry after it finishes.',
  },
  asset_protected: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The file is in use by an active job and cannot be deleted until the job finishes.',
  },
  image_result_deleted: {
    status: 410,
    type: 'invalid_request_error',
    message: 'The images of this generation were deleted.',
  },
  request_too_large: {
    status: 413,
    type: 'request_too_large',
    message: 'Request body too large.',
  },
  // docs/decisions/0050: a write over the storage quota is 413, like any other size refusal.
  storage_quota_exceeded: {
    status: 413,
    type: 'request_too_large',
    message: 'The storage quota is used up. Delete files (POST /v1/storage/cleanup) to free space.',
  },
  // docs/decisions/0066: audio over 20 minutes is refused like a file over 25 MiB.
  audio_too_long: {
    status: 413,
    type: 'request_too_large',
    message: 'The audio is longer than 20 minutes.',
  },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    message: 'Unsupported content type.',
  },
  range_not_satisfiable: {
    status: 416,
    type: 'invalid_request_error',
    message: 'The requested range lies outside the file.',
  },
  rate_limited: { status: 429, type: 'rate_limit_error', message: 'Rate limit reached.' },
  upstream_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'The upstream provider is rate limiting this model.',
  },
  internal: { status: 500, type: 'api_error', message: 'Internal error.' },
  upstream_error: {
    status: 502,
    type: 'api_error',
    message: 'The upstream provider could not be reached or its answer could not be read.',
  },
  upstream_unavailable: {
    status: 503,
    type: 'overloaded_error',
    message: 'Every upstream of this model is failing or out of rotation; retry after the delay.',
  },
  bodies_in_flight_full: {
    status: 503,
    type: 'overloaded_error',
    message: 'The gateway is receiving too many request bodies at once; retry with a delay.',
  },
  not_ready: {
    status: 503,
    type: 'overloaded_error',
    message: 'Temporarily not ready; retry with a delay.',
  },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;
