import { generateKeyPairSync, verify } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import type { FakeErrorReply, RecordedRequest } from './fake-reply.ts';
import { writeJsonReply } from './write-fake-reply.ts';

/** The path of the fake's OAuth token endpoint (a service account key's `token_uri`). */
export const fakeTokenPath = '/token';

const jwtBearerGrant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const cloudPlatformScope = 'https://www.googleapis.com/auth/cloud-platform';

interface IssuedToken {
  clientEmail: string;
  expiresAt: number;
}

/**
 * Google's OAuth token endpoint for service accounts, as the fake plays it (RFC 7523 JWT bearer
 * grant): the assertion must be an RS256 JWT signed with the test key pair's private key, issued
 * by a service account the fake handed out, for the cloud-platform scope, addressed to this
 * endpoint and not expired. The key pair is made when the fake starts; none is stored.
 */
export interface FakeGoogleTokens {
  /**
   * A service account key file's JSON whose `token_uri` is this fake's token endpoint at
   * `origin` (the fake's URL).
   */
  serviceAccountKey(origin: string, clientEmail?: string): string;
  /** Successful exchanges so far. */
  readonly exchanges: number;
  /** `expires_in` of the tokens issued from now on (default 3600). */
  lifetimeSeconds: number;
  /** Answers every later exchange with this error (`errorBody` or OAuth's `invalid_grant`). */
  failExchanges(reply: FakeErrorReply | undefined): void;
  /** The service account an unexpired token was issued to, undefined for any other token. */
  holderOf(token: string): string | undefined;
  /** Answers `POST /token`. */
  answer(request: RecordedRequest, response: ServerResponse): void;
  /** Ends a failure rule and restores the default lifetime; issued tokens stay valid. */
  reset(): void;
}

function decodeSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function createFakeGoogleTokens(now: () => number): FakeGoogleTokens {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  /** client email → the token URL its key names. */
  const accounts = new Map<string, string>();
  const issued = new Map<string, IssuedToken>();
  let exchanges = 0;
  let lifetimeSeconds = 3600;
  let failure: FakeErrorReply | undefined;
  let counter = 0;

  /** Why the assertion is refused, or undefined when it is good. */
  function checkAssertion(assertion: string): { clientEmail: string } | string {
    const [header, payload, signature, ...rest] = assertion.split('.');
    if (header === undefined || payload === undefined || signature === undefined || rest.length > 0)
      return 'The assertion is not a JWT.';
    if (decodeSegment(header)?.alg !== 'RS256') return 'The JWT is not signed with RS256.';
    const signed = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      publicKey,
      Buffer.from(signature, 'base64url'),
    );
    if (!signed) return 'Invalid JWT Signature.';
    const claims = decodeSegment(payload);
    const clientEmail = typeof claims?.iss === 'string' ? claims.iss : '';
    const tokenUri = accounts.get(clientEmail);
    if (tokenUri === undefined) return 'Invalid grant: account not found';
    if (claims?.aud !== tokenUri) return `Invalid JWT: the audience is not ${tokenUri}.`;
    const nowSeconds = now() / 1000;
    if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds)
      return 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.';
    if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(cloudPlatformScope))
      return 'Invalid JWT: the cloud-platform scope is missing.';
    return { clientEmail };
  }

  return {
    serviceAccountKey(
      origin,
      clientEmail = 'switchyard-test@fake-project.iam.gserviceaccount.com',
    ) {
      const tokenUri = `${origin}${fakeTokenPath}`;
      accounts.set(clientEmail, tokenUri);
      return JSON.stringify({
        type: 'service_account',
        project_id: 'fake-project',
        private_key_id: 'fake-key-1',
        private_key: privateKey,
        client_email: clientEmail,
        client_id: '100000000000000000001',
        token_uri: tokenUri,
      });
    },
    get exchanges() {
      return exchanges;
    },
    get lifetimeSeconds() {
      return lifetimeSeconds;
    },
    set lifetimeSeconds(seconds: number) {
      lifetimeSeconds = seconds;
    },
    failExchanges(reply) {
      failure = reply;
    },
    holderOf(token) {
      const entry = issued.get(token);
      return entry !== undefined && entry.expiresAt > now() ? entry.clientEmail : undefined;
    },
    answer(request, response) {
      if (failure !== undefined) {
        const body = failure.errorBody ?? {
          error: failure.errorType ?? 'invalid_grant',
          error_description: failure.errorMessage ?? 'Invalid grant.',
        };
        void writeJsonReply(response, failure.status, failure.headers ?? {}, body, failure.delayMs);
        return;
      }
      const form = new URLSearchParams(request.rawBody);
      const refuse = (description: string) =>
        void writeJsonReply(
          response,
          400,
          {},
          {
            error: 'invalid_grant',
            error_description: description,
          },
        );
      if (form.get('grant_type') !== jwtBearerGrant) return refuse('Unsupported grant type.');
      const checked = checkAssertion(form.get('assertion') ?? '');
      if (typeof checked === 'string') return refuse(checked);
      exchanges += 1;
      counter += 1;
      const token = `ya29.fake-token-${counter}`;
      issued.set(token, {
        clientEmail: checked.clientEmail,
        expiresAt: now() + lifetimeSeconds * 1000,
      });
      void writeJsonReply(
        response,
        200,
        {},
        {
          access_token: token,
          expires_in: lifetimeSeconds,
          token_type: 'Bearer',
        },
      );
    },
    // Issued tokens outlive a reset: a gateway keeps using the token it holds.
    reset() {
      failure = undefined;
      lifetimeSeconds = 3600;
    },
  };
}
