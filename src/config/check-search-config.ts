import type { Config } from './config-schema.ts';

/**
 * What the schema cannot say about `search` (docs/search.md): provider ids name the answer's
 * `provider`, so two alike would hide which one answered; a base URL is http(s); the price
 * becomes integer micro-credits, so more than 6 decimals would be rounded.
 */
export function checkSearchConfig(search: Config['search']): string[] {
  if (search === undefined) return [];
  const problems: string[] = [];
  const seen = new Set<string>();
  search.providers.forEach((provider, index) => {
    if (seen.has(provider.id))
      problems.push(`search.providers[${index}].id: duplicate provider id "${provider.id}"`);
    seen.add(provider.id);
    let protocol = '';
    try {
      protocol = new URL(provider.baseUrl).protocol;
    } catch {
      // Reported below.
    }
    if (protocol !== 'http:' && protocol !== 'https:')
      problems.push(`search.providers[${index}].baseUrl: not an http(s) URL`);
  });
  if (!Number.isInteger(Math.round(search.pricePerRequest * 1e6 * 1e3) / 1e3))
    problems.push('search.pricePerRequest: at most 6 decimal places');
  return problems;
}
