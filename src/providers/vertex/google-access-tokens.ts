import type { JWT } from 'google-auth-library';

import {
  GoogleServiceAccountError,
  googleTokenUrl,
  readGoogleServiceAccount,
  type GoogleServiceAccount,
} from './read-google-service-account.ts';

/** Vertex AI accepts access tokens of this scope (Google Cloud's, for every Cloud API). */
const cloudPlatformScope = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * Why a token could not be had: the key itself (unreadable, or refused by the token endpoint), or
 * the endpoint (down, slow, unreachable). The router treats the first like a refused key and the
 * others like a failing upstream.
 */
export type GoogleTokenFailure = 'refused' | 'server' | 'timeout' | 'connection';

/** A failed token exchange; its message is for the operator and never holds key material. */
export class GoogleTokenError extends Error {
  readonly failure: GoogleTokenFailure;
  /** The token endpoint's HTTP status, when it answered. */
  readonly status: number | undefined;

  constructor(failure: GoogleTokenFailure, message: string, status?: number) {
    super(message);
    this.name = 'GoogleTokenError';
    this.failure = failure;
    this.status = status;
  }
}

export interface GoogleAccessTokensOptions {
  /** The longest one token exchange may take. */
  exchangeTimeoutMs?: number;
  /** Reads a key file a key variable names (tests read from memory). */
  readKeyFile?: (path: string) => Promise<string>;
}

/**
 * OAuth access tokens for service account keys (docs/configuration.md, `vertex`), from Google's
 * auth library: a JWT signed with the key is exchanged at the key's `token_uri` for a token that
 * is reused until five minutes before it expires (the library's eager refresh), one exchange at a
 * time per key however many calls wait for it.
 *
 * The library signs for and posts to Google's own token URL whatever the key file says, so the
 * audience claim and the request's URL are set to the key's `token_uri` here. Its retries are off:
 * a failed exchange fails the call at once, and the router tries another target.
 */
export class GoogleAccessTokens {
  readonly #clients = new Map<string, Promise<JWT>>();
  readonly #exchangeTimeoutMs: number;
  readonly #readKeyFile: ((path: string) => Promise<string>) | undefined;

  constructor(options: GoogleAccessTokensOptions = {}) {
    this.#exchangeTimeoutMs = options.exchangeTimeoutMs ?? 10_000;
    this.#readKeyFile = options.readKeyFile;
  }

  /** A valid access token for the key `secret` holds (its JSON, or its file's path). */
  async token(secret: string): Promise<string> {
    const client = await this.#client(secret);
    let token: string | null | undefined;
    try {
      token = (await client.getAccessToken()).token;
    } catch (error) {
      throw describeExchangeFailure(error);
    }
    if (typeof token !== 'string' || token === '')
      throw new GoogleTokenError('server', 'The token endpoint answered without an access token.');
    return token;
  }

  /**
   * Drops what is held for the key `secret` (the upstream refused a token of it: revoked, or the
   * key's account lost its role): the next call reads the key again and exchanges a new token.
   */
  forget(secret: string): void {
    this.#clients.delete(secret);
  }

  #client(secret: string): Promise<JWT> {
    let client = this.#clients.get(secret);
    if (client === undefined) {
      client = readGoogleServiceAccount(secret, this.#readKeyFile).then(
        async (account) => this.#createClient(account, await loadJwt()),
        (error: unknown) => {
          // An unreadable key is read again by the next call (the file may be fixed meanwhile).
          this.#clients.delete(secret);
          throw error instanceof GoogleServiceAccountError
            ? new GoogleTokenError('refused', error.message)
            : error;
        },
      );
      this.#clients.set(secret, client);
    }
    return client;
  }

  #createClient(account: GoogleServiceAccount, Jwt: typeof JWT): JWT {
    const client = new Jwt({
      email: account.clientEmail,
      key: account.privateKey,
      ...(account.privateKeyId !== undefined ? { keyId: account.privateKeyId } : {}),
      scopes: [cloudPlatformScope],
      // The assertion's audience is the endpoint it is sent to (RFC 7523, section 3).
      additionalClaims: { aud: account.tokenUri },
      transporterOptions: { timeout: this.#exchangeTimeoutMs, retryConfig: { retry: 0 } },
    });
    client.transporter.interceptors.request.add({
      resolved: async (config) => {
        if (config.url.href === googleTokenUrl) config.url = new URL(account.tokenUri);
        return config;
      },
    });
    return client;
  }
}

/**
 * Google's auth library, loaded when the first service account key is used: a gateway without a
 * `vertex` provider never holds it (docs/decisions/0177).
 */
let jwtClass: Promise<typeof JWT> | undefined;
function loadJwt(): Promise<typeof JWT> {
  jwtClass ??= import('google-auth-library').then((library) => library.JWT);
  return jwtClass;
}

function describeExchangeFailure(error: unknown): GoogleTokenError {
  if (error instanceof GoogleTokenError) return error;
  const failure = error as {
    name?: unknown;
    code?: unknown;
    status?: unknown;
    response?: { status?: unknown; data?: unknown };
    cause?: { name?: unknown; code?: unknown };
  };
  const status = typeof failure.response?.status === 'number' ? failure.response.status : undefined;
  if (status !== undefined) {
    const data = failure.response?.data as { error?: unknown } | undefined;
    // OAuth's error code (RFC 6749, section 5.2) names the problem and quotes nothing of the key.
    const code =
      typeof data?.error === 'string' && /^[\w.-]{1,64}$/.test(data.error) ? ` ${data.error}` : '';
    const refused = status >= 400 && status < 500 && status !== 408 && status !== 429;
    return new GoogleTokenError(
      refused ? 'refused' : 'server',
      refused
        ? `The token endpoint refused the service account key (HTTP ${status}${code}).`
        : `The token endpoint failed (HTTP ${status}${code}).`,
      status,
    );
  }
  const names = [failure.name, failure.code, failure.cause?.name, failure.cause?.code];
  if (names.some((name) => name === 'TimeoutError' || name === 'AbortError'))
    return new GoogleTokenError('timeout', 'The token endpoint did not answer in time.');
  const code = names.find((name) => typeof name === 'string' && /^E[A-Z_]+$/.test(name));
  return new GoogleTokenError(
    'connection',
    `The token endpoint could not be reached${typeof code === 'string' ? ` (${code})` : ''}.`,
  );
}
