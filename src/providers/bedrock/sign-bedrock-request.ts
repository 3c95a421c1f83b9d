import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';

/** What a signature covers: the path and query, the headers and the exact bytes sent. */
export interface SignableRequest {
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** AWS credentials, possibly temporary; asked for at each signature (providers memoize). */
export type AwsCredentialProvider = () => Promise<{
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}>;

/**
 * A SigV4 signer of Bedrock Runtime requests (service `bedrock`) for a region and credentials,
 * made once per provider: it keeps the day's signing key between requests.
 */
export function createBedrockSigner(region: string, credentials: AwsCredentialProvider) {
  return new SignatureV4({
    service: 'bedrock',
    region,
    credentials,
    sha256: Hash.bind(null, 'sha256'),
  });
}

export type BedrockSigner = ReturnType<typeof createBedrockSigner>;

export interface BedrockSigning {
  /** The provider's `baseUrl` origin (its host is signed). */
  origin: URL;
  signer: BedrockSigner;
  /** For tests: the signing time. */
  signingDate?: Date;
}

/**
 * Signs a Bedrock Runtime request with AWS Signature Version 4 in place: `authorization`,
 * `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` with temporary credentials, and
 * the `host` the signature names. The path is escaped once more for the canonical request, as
 * SigV4 wants for every service but S3 (a model id's `%3A` signs as `%253A`).
 */
export async function signBedrockRequest(
  request: SignableRequest,
  signing: BedrockSigning,
): Promise<void> {
  const url = signing.origin;
  const [path = '/', search] = request.path.split('?', 2);
  const signed = await signing.signer.sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port !== '' ? { port: Number(url.port) } : {}),
      path,
      query: search === undefined ? {} : Object.fromEntries(new URLSearchParams(search)),
      headers: { ...request.headers, host: url.host },
      body: request.body,
    },
    signing.signingDate !== undefined ? { signingDate: signing.signingDate } : {},
  );
  Object.assign(request.headers, signed.headers);
}
