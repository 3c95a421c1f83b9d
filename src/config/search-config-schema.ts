import { Type, type Static } from 'typebox';

const Positive = (defaultValue: number, description: string) =>
  Type.Integer({ minimum: 1, default: defaultValue, description });

/** One web search upstream; docs/search.md describes each kind's wire format. */
export const SearchProviderConfigSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'Named in answers (`provider`) and logs.' }),
    kind: Type.Union([Type.Literal('tavily'), Type.Literal('brave'), Type.Literal('searxng')], {
      description:
        'tavily: POST /search (Tavily-style); brave: GET /res/v1/web/search; searxng: GET /search?format=json.',
    }),
    baseUrl: Type.String({ minLength: 1, description: 'e.g. https://api.tavily.com' }),
    apiKeyEnv: Type.Optional(
      Type.String({ minLength: 1, description: 'Name of the environment variable with the key.' }),
    ),
    connectTimeoutMs: Positive(5_000, 'TCP/TLS connect timeout.'),
    firstByteTimeoutMs: Positive(15_000, 'Time from the send to the upstream response headers.'),
    idleTimeoutMs: Positive(15_000, 'Longest silence between two body chunks.'),
    maxConnections: Positive(32, 'Keep-alive pool size of this provider.'),
  },
  { additionalProperties: false },
);

/** Web search (docs/search.md): absent, POST /v1/search does not exist. */
export const SearchConfigSchema = Type.Optional(
  Type.Object(
    {
      providers: Type.Array(SearchProviderConfigSchema, {
        minItems: 1,
        description: 'Tried in order; the next one on 5xx, timeout or connect failure.',
      }),
      pricePerRequest: Type.Number({
        minimum: 0,
        default: 0,
        description: 'Credits charged for each successful search (held before the call).',
      }),
    },
    { additionalProperties: false },
  ),
);

export type SearchConfig = NonNullable<Static<typeof SearchConfigSchema>>;
export type SearchProviderConfig = Static<typeof SearchProviderConfigSchema>;
