import { request } from 'undici';
import { parseServerSentEvents } from '../support/parse-sse.ts';
import type { ServerSentEvent } from '../support/parse-sse.ts';

export interface FakeUpstreamAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** True when the connection broke before the body ended. */
  broken: boolean;
}

/** Test-side view of one call; `any` keeps assertions on wire JSON short. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WireJson = any;

export async function callFakeUpstream(
  url: string,
  options: {
    method?: 'GET' | 'POST';
    body?: unknown;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  } = {},
): Promise<FakeUpstreamAnswer> {
  const response = await request(url, {
    method: options.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  let text = '';
  let broken = false;
  try {
    for await (const chunk of response.body) text += (chunk as Buffer).toString('utf8');
  } catch {
    broken = true;
  }
  return { status: response.statusCode, headers: response.headers, text, broken };
}

export function jsonOf(answer: FakeUpstreamAnswer): WireJson {
  return JSON.parse(answer.text);
}

export function eventsOf(answer: FakeUpstreamAnswer): ServerSentEvent[] {
  return parseServerSentEvents(answer.text);
}

/** The parsed `data` of every event except the chat `[DONE]` sentinel. */
export function eventDataOf(answer: FakeUpstreamAnswer): WireJson[] {
  return eventsOf(answer)
    .filter((event) => event.data !== '[DONE]')
    .map((event) => JSON.parse(event.data));
}
