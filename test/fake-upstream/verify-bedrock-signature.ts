import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { RecordedRequest } from './fake-reply.ts';

export interface FakeAwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export type SignatureCheck =
  | { ok: true; accessKeyId: string }
  | { ok: false; status: 403; errorType: string; message: string; accessKeyId?: string };

const authorizationPattern =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/;

/** `20261127T120000Z` as a date. */
function parseAmzDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match;
  return new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
}

/**
 * Checks a request's SigV4 signature as Bedrock does: the same signature computed again, with the
 * signing library, from what arrived (method, host, path, signed headers, body bytes) and the
 * secret of the access key it names. Answers Bedrock's 403s otherwise.
 */
export async function verifyBedrockSignature(
  request: RecordedRequest,
  known: FakeAwsCredentials[],
): Promise<SignatureCheck> {
  const authorization = request.headers.authorization ?? '';
  const match = authorizationPattern.exec(authorization);
  if (match === null) {
    return {
      ok: false,
      status: 403,
      errorType: 'AccessDeniedException',
      message: 'Missing Authentication Token',
    };
  }
  const [, accessKeyId = '', , region = '', service = '', signedHeaderList = ''] = match;
  const credentials = known.find((entry) => entry.accessKeyId === accessKeyId);
  if (credentials === undefined) {
    return {
      ok: false,
      status: 403,
      errorType: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
      accessKeyId,
    };
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaderList.split(';')) headers[name] = request.headers[name] ?? '';
  const signingDate = parseAmzDate(request.headers['x-amz-date'] ?? '');
  const host = request.headers.host ?? '';
  const signer = new SignatureV4({
    service,
    region,
    credentials: {
      ...credentials,
      ...(request.headers['x-amz-security-token'] !== undefined
        ? { sessionToken: request.headers['x-amz-security-token'] }
        : {}),
    },
    sha256: Hash.bind(null, 'sha256'),
  });
  const expected = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: host.replace(/:\d+$/, ''),
      path: request.path,
      query: request.query,
      headers,
      body: request.rawBody,
    },
    signingDate !== undefined ? { signingDate } : {},
  );
  if (service === 'bedrock' && expected.headers.authorization === authorization) {
    return { ok: true, accessKeyId };
  }
  return {
    ok: false,
    status: 403,
    errorType: 'InvalidSignatureException',
    message:
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    accessKeyId,
  };
}
