/**
 * Azure OpenAI's routes on the fake: the `/openai/v1/` routes (the deployment in the body's
 * `model`) and the deployment routes (`/openai/deployments/{name}/chat/completions`, and
 * `/openai/responses`, both needing `api-version`). Each is answered as the OpenAI route of the
 * same dialect; the key comes in the `api-key` header or as a Bearer token.
 */
export interface AzureRoute {
  /** The OpenAI route that answers it. */
  route: '/v1/chat/completions' | '/v1/responses';
  /** The deployment named in the path, on the deployment routes. */
  deployment?: string;
  /** Whether the route needs `?api-version=`. */
  versioned: boolean;
}

export function matchAzureRoute(path: string): AzureRoute | undefined {
  if (path === '/openai/v1/chat/completions')
    return { route: '/v1/chat/completions', versioned: false };
  if (path === '/openai/v1/responses') return { route: '/v1/responses', versioned: false };
  if (path === '/openai/responses') return { route: '/v1/responses', versioned: true };
  const deployment = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
  if (deployment?.[1] !== undefined)
    return {
      route: '/v1/chat/completions',
      deployment: decodeURIComponent(deployment[1]),
      versioned: true,
    };
  return undefined;
}

/** Azure's key headers: `api-key`, else a Bearer token. */
export function presentedAzureKey(headers: Record<string, string>): string | undefined {
  return headers['api-key'] ?? /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
}

/**
 * The chunk Azure streams before any choice: the prompt's content-filter results, with no
 * choices and empty id and model (clients must skip it).
 */
export const azurePromptFilterChunk = {
  choices: [],
  created: 0,
  id: '',
  model: '',
  object: '',
  prompt_filter_results: [
    {
      prompt_index: 0,
      content_filter_results: {
        hate: { filtered: false, severity: 'safe' },
        self_harm: { filtered: false, severity: 'safe' },
        sexual: { filtered: false, severity: 'safe' },
        violence: { filtered: false, severity: 'safe' },
      },
    },
  ],
};

/** Azure's 400 for a prompt its content filter refused. */
export const azurePromptFilteredBody = {
  error: {
    message:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
    type: null,
    param: 'prompt',
    code: 'content_filter',
    status: 400,
    innererror: {
      code: 'ResponsibleAIPolicyViolation',
      content_filter_result: {
        hate: { filtered: false, severity: 'safe' },
        self_harm: { filtered: false, severity: 'safe' },
        sexual: { filtered: false, severity: 'safe' },
        violence: { filtered: true, severity: 'high' },
      },
    },
  },
};
