import type { UpstreamEvent } from '../providers/provider-codec.ts';
import type { SurfaceEvent } from '../surfaces/surface-codec.ts';

/** One SSE frame for a surface event; chat's `[DONE]` goes raw (it is not JSON). */
export function serializeSurfaceEvent(event: SurfaceEvent): string {
  const data = event.json ?? (event.data === '[DONE]' ? '[DONE]' : JSON.stringify(event.data));
  return event.event === undefined
    ? `data: ${data}\n\n`
    : `event: ${event.event}\ndata: ${data}\n\n`;
}

/** Re-frames a relayed upstream event without re-serialising its JSON. */
export function serializeUpstreamEvent(event: UpstreamEvent): string {
  return serializeUpstreamFrame(event.event, event.data);
}

/** `serializeUpstreamEvent` from an event's name and (possibly edited) data. */
export function serializeUpstreamFrame(name: string | undefined, data: string): string {
  const lines = data.includes('\n') ? data.split('\n').join('\ndata: ') : data;
  return name === undefined ? `data: ${lines}\n\n` : `event: ${name}\ndata: ${lines}\n\n`;
}

/**
 * The frames of a chunk of a stream reply (GenerationReply `events`): each chunk is one or more
 * whole frames as the two functions above write them, each ending in a blank line.
 */
export function splitSseFrames(chunk: string): string[] {
  const frames: string[] = [];
  let start = 0;
  for (let end = chunk.indexOf('\n\n'); end !== -1; end = chunk.indexOf('\n\n', start)) {
    frames.push(chunk.slice(start, end + 2));
    start = end + 2;
  }
  if (start < chunk.length) frames.push(chunk.slice(start));
  return frames;
}
