import type { SearchResult } from './search-types.ts';

/** A record, or undefined for anything else (upstream JSON is untrusted). */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Builds one normalized hit from a provider's fields, or undefined when it has no URL: a hit
 * the client cannot open is not a result. Optional fields appear only when they are well typed.
 */
export function buildSearchResult(fields: {
  title: unknown;
  url: unknown;
  content: unknown;
  score?: unknown;
  publishedDate?: unknown;
}): SearchResult | undefined {
  if (typeof fields.url !== 'string' || fields.url === '') return undefined;
  const result: SearchResult = {
    title: typeof fields.title === 'string' ? fields.title : '',
    url: fields.url,
    content: typeof fields.content === 'string' ? fields.content : '',
  };
  if (typeof fields.score === 'number' && Number.isFinite(fields.score))
    result.score = fields.score;
  if (typeof fields.publishedDate === 'string' && fields.publishedDate !== '')
    result.published_date = fields.publishedDate;
  return result;
}

/** Reads an array of provider hits, keeping at most `limit` usable ones. */
export function readResultList(
  list: unknown,
  limit: number,
  read: (hit: Record<string, unknown>) => SearchResult | undefined,
): SearchResult[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const results: SearchResult[] = [];
  for (const item of list) {
    const hit = asRecord(item);
    const result = hit === undefined ? undefined : read(hit);
    if (result !== undefined) results.push(result);
    if (results.length === limit) break;
  }
  return results;
}
