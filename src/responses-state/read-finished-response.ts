import { splitSseFrames } from '../generation/serialize-sse.ts';
import { parseUntrustedJson } from '../shared/parse-json.ts';
import type { ResponsesItem } from './response-store.ts';

/** A response that ended `completed` or `incomplete`: the only ones a later turn may continue. */
export interface FinishedResponse {
  id: string;
  output: ResponsesItem[];
}

const finishedStatuses = new Set(['completed', 'incomplete']);
const finishedEvents = new Set(['response.completed', 'response.incomplete']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finishedFrom(response: unknown): FinishedResponse | undefined {
  if (!isRecord(response) || typeof response.id !== 'string') return undefined;
  if (!finishedStatuses.has(String(response.status)) || !Array.isArray(response.output)) {
    return undefined;
  }
  return { id: response.id, output: response.output.filter(isRecord) };
}

function parse(text: string): unknown {
  try {
    return parseUntrustedJson(text);
  } catch {
    return undefined;
  }
}

/**
 * The `data` of one serialised SSE frame; several `data:` lines are one value joined by newlines
 * (WHATWG HTML, "server-sent events"). Undefined for a frame without data.
 */
export function readSseData(frame: string): string | undefined {
  let data: string | undefined;
  for (const line of frame.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const value = line.slice(line.startsWith('data: ') ? 6 : 5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  return data;
}

/**
 * The finished response carried by a `response.completed` or `response.incomplete` frame of a
 * chunk of stream frames (the same event JSON for an upstream's relayed stream and the gateway's
 * own encoder). Chunks that cannot hold one are skipped without parsing: this runs on every
 * chunk of a stream.
 */
export function readFinishedStreamFrames(chunk: string): FinishedResponse | undefined {
  if (!chunk.includes('response.completed') && !chunk.includes('response.incomplete')) {
    return undefined;
  }
  for (const frame of splitSseFrames(chunk)) {
    const data = readSseData(frame);
    const event = data === undefined ? undefined : parse(data);
    if (isRecord(event) && finishedEvents.has(String(event.type))) {
      return finishedFrom(event.response);
    }
  }
  return undefined;
}

/** The finished response of a non-streamed answer (a whole response object). */
export function readFinishedResponseBody(body: string): FinishedResponse | undefined {
  return finishedFrom(parse(body));
}
