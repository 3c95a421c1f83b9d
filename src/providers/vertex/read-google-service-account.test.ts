import { describe, expect, it } from 'vitest';

import {
  GoogleServiceAccountError,
  readGoogleServiceAccount,
} from './read-google-service-account.ts';

const key = {
  type: 'service_account',
  project_id: 'my-proj',
  private_key_id: 'abc123',
  private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
  client_email: 'gateway@my-proj.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.example.test/token',
};

async function refusal(secret: string, read?: (path: string) => Promise<string>) {
  const error = await readGoogleServiceAccount(secret, read).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GoogleServiceAccountError);
  return (error as Error).message;
}

describe('readGoogleServiceAccount', () => {
  it('reads the key JSON a variable holds, keeping its token_uri', async () => {
    expect(await readGoogleServiceAccount(`  ${JSON.stringify(key)}`)).toEqual({
      clientEmail: key.client_email,
      privateKey: key.private_key,
      privateKeyId: 'abc123',
      tokenUri: 'https://oauth2.example.test/token',
    });
  });

  it('reads the key file a variable names', async () => {
    const read = async (path: string) => {
      expect(path).toBe('/etc/keys/vertex.json');
      return JSON.stringify({ ...key, token_uri: undefined });
    };
    const account = await readGoogleServiceAccount('/etc/keys/vertex.json\n', read);
    expect(account.tokenUri).toBe('https://oauth2.googleapis.com/token');
  });

  it('refuses what is not a service account key, naming the problem only', async () => {
    expect(await refusal('{"type":"authorized_user","refresh_token":"1//secret"}')).toBe(
      'The key is of type "authorized_user"; a service account key ("type": "service_account") is needed.',
    );
    expect(await refusal(JSON.stringify({ ...key, private_key: '' }))).toBe(
      'The service account key lacks client_email or private_key.',
    );
    expect(await refusal(JSON.stringify({ ...key, token_uri: 'file:///etc/passwd' }))).toBe(
      'The service account key has a token_uri that is not a URL.',
    );
    expect(await refusal('{"private_key": "-----BEGIN')).toBe(
      'The service account key is not JSON.',
    );
    expect(await refusal('/keys/list.json', async () => '[]')).toBe(
      'The service account key is not a JSON object.',
    );
  });

  it('tells an unreadable file by its error code', async () => {
    const missing = Object.assign(new Error('ENOENT: /keys/secret.json'), { code: 'ENOENT' });
    expect(await refusal('/keys/secret.json', () => Promise.reject(missing))).toBe(
      'The service account key file could not be read (ENOENT).',
    );
  });
});
