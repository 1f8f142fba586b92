import type { SignatureV4 } from '@smithy/signature-v4';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** For temporary credentials (STS, SSO, instance roles). */
  readonly sessionToken?: string;
}

/** Signs a request's headers; returns the headers to send, signature included. */
export type BedrockRequestSigner = (url: URL, body: string, headers: Readonly<Record<string, string>>) => Promise<Record<string, string>>;

/**
 * AWS Signature Version 4 for Bedrock runtime calls, with service name `bedrock`
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html).
 * The signed headers are `host`, the given ones, `x-amz-date`,
 * `x-amz-content-sha256` and, with temporary credentials, `x-amz-security-token`.
 * `host` is not returned: the HTTP client derives the same value from the URL.
 * The path is signed as sent (already percent-encoded) and escaped once more
 * by the signer, as every AWS service but S3 expects.
 */
export function createBedrockSigner(credentials: AwsCredentials, region: string, now: () => Date = () => new Date()): BedrockRequestSigner {
  // The AWS signing code is loaded with the first Bedrock call, not at start-up: most gateways never call Bedrock
  // (docs/performance.md, idle memory).
  let signer: Promise<SignatureV4> | undefined;
  const createSigner = async (): Promise<SignatureV4> => {
    const [{ SignatureV4 }, { Sha256 }] = await Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]);
    return new SignatureV4({
      credentials: {
        accessKeyId: credentials.accessKeyId,
        secretAccessKey: credentials.secretAccessKey,
        ...(credentials.sessionToken !== undefined ? { sessionToken: credentials.sessionToken } : {}),
      },
      region,
      service: 'bedrock',
      sha256: Sha256,
    });
  };
  return async (url, body, headers) => {
    signer ??= createSigner();
    const query: Record<string, string> = {};
    url.searchParams.forEach((value, name) => {
      query[name] = value;
    });
    const signed = await (await signer).sign(
      {
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port !== '' ? { port: Number(url.port) } : {}),
        path: url.pathname,
        query,
        headers: { ...headers, host: url.host },
        body,
      },
      { signingDate: now() },
    );
    const result: Record<string, string> = {};
    for (const [name, value] of Object.entries(signed.headers)) if (name !== 'host') result[name] = value;
    return result;
  };
}
