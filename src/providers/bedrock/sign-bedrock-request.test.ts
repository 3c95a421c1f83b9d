import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBedrockSigner, signBedrockRequest } from './sign-bedrock-request.ts';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const signingDate = new Date('2026-11-27T12:00:00Z');
const body = '{"messages":[{"role":"user","content":[{"text":"hi"}]}]}';

function request() {
  return {
    path: '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke',
    headers: { 'content-type': 'application/json', accept: 'application/json' } as Record<
      string,
      string
    >,
    body,
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: string | Buffer, text: string) =>
  createHmac('sha256', key).update(text).digest();

/**
 * The signature as the SigV4 documentation spells it out, computed here independently of the
 * signing library: the canonical URI escapes the already escaped path once more.
 */
function expectedSignature(host: string): string {
  const canonical = [
    'POST',
    '/model/anthropic.claude-sonnet-4-5-20250929-v1%253A0/invoke',
    '',
    'accept:application/json',
    'content-type:application/json',
    `host:${host}`,
    `x-amz-content-sha256:${sha256(body)}`,
    'x-amz-date:20261127T120000Z',
    '',
    'accept;content-type;host;x-amz-content-sha256;x-amz-date',
    sha256(body),
  ].join('\n');
  const scope = '20261127/us-east-1/bedrock/aws4_request';
  const toSign = ['AWS4-HMAC-SHA256', '20261127T120000Z', scope, sha256(canonical)].join('\n');
  let key = hmac(`AWS4${credentials.secretAccessKey}`, '20261127');
  for (const part of ['us-east-1', 'bedrock', 'aws4_request']) key = hmac(key, part);
  return hmac(key, toSign).toString('hex');
}

describe('signBedrockRequest', () => {
  it('signs for the bedrock service with the double-escaped model path and the host port', async () => {
    const signed = request();
    await signBedrockRequest(signed, {
      origin: new URL('http://127.0.0.1:8443'),
      signer: createBedrockSigner('us-east-1', async () => credentials),
      signingDate,
    });
    expect(signed.headers.host).toBe('127.0.0.1:8443');
    expect(signed.headers['x-amz-date']).toBe('20261127T120000Z');
    expect(signed.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261127/us-east-1/bedrock/aws4_request, ' +
        'SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, ' +
        `Signature=${expectedSignature('127.0.0.1:8443')}`,
    );
    expect(signed.path).toBe('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
  });

  it('sends the session token of temporary credentials, signed', async () => {
    const signed = request();
    await signBedrockRequest(signed, {
      origin: new URL('https://bedrock-runtime.us-east-1.amazonaws.com'),
      signer: createBedrockSigner('us-east-1', async () => ({
        ...credentials,
        sessionToken: 'FQoGZXIvYXdzEXAMPLE',
      })),
      signingDate,
    });
    expect(signed.headers['x-amz-security-token']).toBe('FQoGZXIvYXdzEXAMPLE');
    expect(signed.headers.authorization).toContain('x-amz-date;x-amz-security-token,');
    expect(signed.headers.host).toBe('bedrock-runtime.us-east-1.amazonaws.com');
  });
});
