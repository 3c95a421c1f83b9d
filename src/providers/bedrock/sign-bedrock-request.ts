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

export interface BedrockSigning {
  /** The provider's `baseUrl` origin (its host is signed). */
  origin: string;
  region: string;
  credentials: AwsCredentialProvider;
  /** For tests: the signing time. */
  signingDate?: Date;
}

/**
 * Signs a Bedrock Runtime request with AWS Signature Version 4 (service `bedrock`) in place:
 * `authorization`, `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` with temporary
 * credentials, and the `host` the signature names. The path is escaped once more for the
 * canonical request, as SigV4 wants for every service but S3 (a model id's `%3A` signs as
 * `%253A`).
 */
export async function signBedrockRequest(
  request: SignableRequest,
  signing: BedrockSigning,
): Promise<void> {
  const url = new URL(signing.origin);
  const signer = new SignatureV4({
    service: 'bedrock',
    region: signing.region,
    credentials: signing.credentials,
    sha256: Hash.bind(null, 'sha256'),
  });
  const [path = '/', search] = request.path.split('?', 2);
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port !== '' ? { port: Number(url.port) } : {}),
      path,
      query: Object.fromEntries(new URLSearchParams(search ?? '')),
      headers: { ...request.headers, host: url.host },
      body: request.body,
    },
    signing.signingDate !== undefined ? { signingDate: signing.signingDate } : {},
  );
  Object.assign(request.headers, signed.headers);
}
