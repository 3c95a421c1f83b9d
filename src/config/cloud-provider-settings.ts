/**
 * The cloud kinds' own settings (docs/configuration.md): their default endpoints, and what each
 * needs besides. `baseUrl` of these kinds is an origin; the gateway adds the API's paths.
 */
const cloudKinds = new Set(['bedrock', 'vertex', 'gemini', 'azure-openai']);

/** The public endpoint of a kind in a region, when the operator gave no `baseUrl`. */
export function defaultBaseUrl(provider: Record<string, unknown>): string | undefined {
  const region = typeof provider.region === 'string' ? provider.region : undefined;
  switch (provider.kind) {
    case 'bedrock':
      return region === undefined ? undefined : `https://bedrock-runtime.${region}.amazonaws.com`;
    case 'vertex':
      if (region === undefined) return undefined;
      return region === 'global'
        ? 'https://aiplatform.googleapis.com'
        : `https://${region}-aiplatform.googleapis.com`;
    case 'gemini':
      return 'https://generativelanguage.googleapis.com';
    default:
      return undefined;
  }
}

/**
 * The key variable of a kind when the operator named none: a vertex provider reads the service
 * account key file `GOOGLE_APPLICATION_CREDENTIALS` names, as Google's own tools do
 * (docs/decisions/0156).
 */
export function defaultApiKeyEnv(provider: Record<string, unknown>): string | undefined {
  return provider.kind === 'vertex' ? 'GOOGLE_APPLICATION_CREDENTIALS' : undefined;
}

/** What is wrong with one provider's cloud settings, each naming its key. */
export function checkCloudProvider(
  name: string,
  provider: {
    kind: string;
    baseUrl: string;
    region?: string | undefined;
    project?: string | undefined;
    apiVersion?: string | undefined;
    authScheme?: string | undefined;
    apiKeyEnv?: unknown;
  },
): string[] {
  const at = `providers.${name}`;
  const problems: string[] = [];
  const needs = (key: 'region' | 'project', kinds: string[]) => {
    if (kinds.includes(provider.kind) && provider[key] === undefined)
      problems.push(`${at}.${key}: is required for a ${provider.kind} provider`);
    if (!kinds.includes(provider.kind) && provider[key] !== undefined)
      problems.push(`${at}.${key}: only a ${kinds.join(' or ')} provider has one`);
  };
  needs('region', ['bedrock', 'vertex']);
  needs('project', ['vertex']);
  // The Gemini API answers nothing without a key (it is sent as x-goog-api-key).
  if (provider.kind === 'gemini' && provider.apiKeyEnv === undefined)
    problems.push(`${at}.apiKeyEnv: is required for a gemini provider`);
  if (provider.kind !== 'azure-openai') {
    if (provider.apiVersion !== undefined)
      problems.push(`${at}.apiVersion: only an azure-openai provider has one`);
    if (provider.authScheme !== undefined)
      problems.push(`${at}.authScheme: only an azure-openai provider has one`);
  }
  if (cloudKinds.has(provider.kind)) {
    let url: URL | undefined;
    try {
      url = new URL(provider.baseUrl);
    } catch {
      // load-config.ts reports a URL it cannot read.
    }
    if (url !== undefined && (url.pathname !== '/' || url.search !== '' || url.hash !== '')) {
      problems.push(
        `${at}.baseUrl: the service's origin only (scheme, host, port); the gateway adds the API's paths`,
      );
    }
  }
  return problems;
}
