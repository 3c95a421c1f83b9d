import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedSearch {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A scripted answer; `destroy` cuts the connection, `delayMs` waits before the headers. */
export interface FakeSearchReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
  destroy?: boolean;
}

export interface FakeSearchUpstream {
  url: string;
  requests: RecordedSearch[];
  /** Answers the next requests in order; once empty, each provider's normal answer. */
  replies: FakeSearchReply[];
  close(): Promise<void>;
}

/** The hits the fake finds for a query: deterministic, numbered from 1. */
function hits(query: string, count: number) {
  return Array.from({ length: count }, (_, index) => ({
    title: `Result ${index + 1} for ${query}`,
    url: `https://example.com/${index + 1}?q=${encodeURIComponent(query)}`,
    content: `Snippet ${index + 1} about ${query}`,
    score: 1 - index / 100,
    date: `2026-01-${String(index + 1).padStart(2, '0')}T00:00:00Z`,
  }));
}

/** Tavily's answer: `{query, results: [{title, url, content, score, published_date}], …}`. */
function answerTavily(body: Record<string, unknown>) {
  const count = typeof body.max_results === 'number' ? body.max_results : 5;
  const query = String(body.query);
  return {
    query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results: hits(query, count).map((hit) => ({
      title: hit.title,
      url: hit.url,
      content: hit.content,
      score: hit.score,
      raw_content: null,
      published_date: hit.date,
    })),
    response_time: 0.42,
  };
}

/** Brave's answer: hits in `web.results`, snippets marked with <strong>, dates as `page_age`. */
function answerBrave(query: URLSearchParams) {
  const q = query.get('q') ?? '';
  const count = Number(query.get('count') ?? 20);
  return {
    type: 'search',
    query: { original: q, more_results_available: true },
    mixed: { type: 'mixed', main: [] },
    web: {
      type: 'search',
      family_friendly: true,
      results: hits(q, count).map((hit) => ({
        type: 'search_result',
        title: hit.title,
        url: hit.url,
        is_source_local: false,
        description: hit.content.replace(q, `<strong>${q}</strong>`),
        page_age: hit.date,
        age: 'January 1, 2026',
        language: 'en',
        meta_url: { scheme: 'https', netloc: 'example.com', hostname: 'example.com' },
      })),
    },
  };
}

/** SearXNG's JSON answer: always its whole first page (it has no count parameter). */
function answerSearxng(query: URLSearchParams) {
  const q = query.get('q') ?? '';
  return {
    query: q,
    number_of_results: 0,
    results: hits(q, 12).map((hit, index) => ({
      url: hit.url,
      title: hit.title,
      content: hit.content,
      engine: 'duckduckgo',
      engines: ['duckduckgo'],
      positions: [index + 1],
      score: hit.score * 3,
      category: 'general',
      publishedDate: index % 2 === 0 ? hit.date : null,
    })),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [],
    unresponsive_engines: [],
  };
}

function normalAnswer(request: RecordedSearch): FakeSearchReply {
  if (request.method === 'POST' && request.path === '/search')
    return { body: answerTavily(request.body as Record<string, unknown>) };
  if (request.method === 'GET' && request.path === '/res/v1/web/search')
    return { body: answerBrave(request.query) };
  if (
    request.method === 'GET' &&
    request.path === '/search' &&
    request.query.get('format') === 'json'
  )
    return { body: answerSearxng(request.query) };
  return { status: 404, body: { error: 'not found' } };
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/** A search upstream on a free loopback port speaking Tavily's, Brave's and SearXNG's formats. */
export async function startFakeSearchUpstream(): Promise<FakeSearchUpstream> {
  const requests: RecordedSearch[] = [];
  const replies: FakeSearchReply[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const recorded: RecordedSearch = {
        method: request.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: await readBody(request),
      };
      requests.push(recorded);
      const reply = replies.shift() ?? normalAnswer(recorded);
      if (reply.delayMs !== undefined) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.destroy === true) {
        request.socket.destroy();
        return;
      }
      response.writeHead(reply.status ?? 200, {
        'content-type': 'application/json',
        ...reply.headers,
      });
      response.end(JSON.stringify(reply.body ?? {}));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    replies,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
