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
 * The finished response carried by a `response.completed` or `response.incomplete` stream frame
 * (the same event JSON for an upstream's relayed stream and the gateway's own encoder). Frames
 * that cannot be one are skipped without parsing: this runs on every frame of a stream.
 */
export function readFinishedStreamFrame(frame: string): FinishedResponse | undefined {
  if (!frame.includes('response.completed') && !frame.includes('response.incomplete')) {
    return undefined;
  }
  const data = readSseData(frame);
  const event = data === undefined ? undefined : parse(data);
  if (!isRecord(event) || !finishedEvents.has(String(event.type))) return undefined;
  return finishedFrom(event.response);
}

/** The finished response of a non-streamed answer (a whole response object). */
export function readFinishedResponseBody(body: string): FinishedResponse | undefined {
  return finishedFrom(parse(body));
}
