import type {
  AcquireRateLimitRequest,
  RateLimitScope,
  ReleaseRateLimitOptions,
} from './rate-limiter.ts';

/**
 * Guards shared by every adapter. These are programming or configuration errors, not client
 * errors: a limit of 0 would refuse forever with no honest `retry-after`, and a scope named twice
 * would be charged twice.
 */
export function assertAcquireRateLimitRequest(request: AcquireRateLimitRequest): void {
  assertTime(request.now, 'now');
  assertCount(request.estimatedTokens, 'estimatedTokens');
  const { scopes } = request;
  for (let index = 0; index < scopes.length; index++) {
    const scope = scopes[index] as RateLimitScope;
    if (typeof scope.key !== 'string' || scope.key === '') {
      throw new TypeError('A rate-limit scope needs a non-empty key.');
    }
    // A request names a scope or two (its token, its account): a look back beats a Set.
    for (let earlier = 0; earlier < index; earlier++) {
      if ((scopes[earlier] as RateLimitScope).key === scope.key) {
        throw new RangeError(`Rate-limit scope "${scope.key}" is named twice in one acquire.`);
      }
    }
    assertLimit(scope, 'requestsPerMinute');
    assertLimit(scope, 'tokensPerMinute');
    assertLimit(scope, 'concurrentRequests');
  }
}

export function assertReleaseRateLimitOptions(options: ReleaseRateLimitOptions): void {
  assertTime(options.now, 'now');
  assertCount(options.actualTokens, 'actualTokens');
}

function assertLimit(
  scope: RateLimitScope,
  name: 'requestsPerMinute' | 'tokensPerMinute' | 'concurrentRequests',
): void {
  const value = scope[name];
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
    throw new RangeError(
      `Rate-limit scope "${scope.key}": ${name} must be a positive integer or absent.`,
    );
  }
}

function assertCount(value: number, name: string): void {
  if (!(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`${name} must be a non-negative integer.`);
  }
}

function assertTime(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be epoch milliseconds.`);
  }
}
