import { readFile } from 'node:fs/promises';

import { parseUntrustedJson } from '../../shared/parse-json.ts';

/** Where Google's service-account keys send their token requests unless the key says otherwise. */
export const googleTokenUrl = 'https://oauth2.googleapis.com/token';

/** The parts of a service account key (its JSON key file) a token exchange needs. */
export interface GoogleServiceAccount {
  clientEmail: string;
  /** PEM, PKCS #8. */
  privateKey: string;
  privateKeyId: string | undefined;
  /** The key file's `token_uri`: the exchange goes there, and the JWT names it as its audience. */
  tokenUri: string;
}

/** A key that cannot be used; the message names what is wrong, never what the key holds. */
export class GoogleServiceAccountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoogleServiceAccountError';
  }
}

function field(key: Record<string, unknown>, name: string): string | undefined {
  const value = key[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * A service account key from a provider's key variable (docs/decisions/0156): the key file's
 * JSON itself, or the path of a key file (what `GOOGLE_APPLICATION_CREDENTIALS` holds).
 */
export async function readGoogleServiceAccount(
  secret: string,
  read: (path: string) => Promise<string> = (path) => readFile(path, 'utf8'),
): Promise<GoogleServiceAccount> {
  const inline = secret.trimStart().startsWith('{');
  let text = secret;
  if (!inline) {
    try {
      text = await read(secret.trim());
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new GoogleServiceAccountError(
        `The service account key file could not be read (${typeof code === 'string' ? code : 'unreadable'}).`,
      );
    }
  }
  let key: unknown;
  try {
    key = parseUntrustedJson(text);
  } catch {
    throw new GoogleServiceAccountError(
      inline ? 'The service account key is not JSON.' : 'The service account key file is not JSON.',
    );
  }
  if (typeof key !== 'object' || key === null || Array.isArray(key))
    throw new GoogleServiceAccountError('The service account key is not a JSON object.');
  const record = key as Record<string, unknown>;
  if (record.type !== undefined && record.type !== 'service_account') {
    throw new GoogleServiceAccountError(
      `The key is of type "${String(record.type)}"; a service account key ("type": "service_account") is needed.`,
    );
  }
  const clientEmail = field(record, 'client_email');
  const privateKey = field(record, 'private_key');
  if (clientEmail === undefined || privateKey === undefined) {
    throw new GoogleServiceAccountError(
      'The service account key lacks client_email or private_key.',
    );
  }
  const tokenUri = field(record, 'token_uri') ?? googleTokenUrl;
  if (!/^https?:\/\//.test(tokenUri))
    throw new GoogleServiceAccountError(
      'The service account key has a token_uri that is not a URL.',
    );
  return {
    clientEmail,
    privateKey,
    privateKeyId: field(record, 'private_key_id'),
    tokenUri,
  };
}
