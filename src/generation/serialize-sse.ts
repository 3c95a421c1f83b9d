import type { UpstreamEvent } from '../providers/provider-codec.ts';
import type { SurfaceEvent } from '../surfaces/surface-codec.ts';

/** One SSE frame for a surface event; chat's `[DONE]` goes raw (it is not JSON). */
export function serializeSurfaceEvent(event: SurfaceEvent): string {
  const data = event.data === '[DONE]' ? '[DONE]' : JSON.stringify(event.data);
  return event.event === undefined
    ? `data: ${data}\n\n`
    : `event: ${event.event}\ndata: ${data}\n\n`;
}

/** Re-frames a relayed upstream event without re-serialising its JSON. */
export function serializeUpstreamEvent(event: UpstreamEvent): string {
  const data = event.data.includes('\n') ? event.data.split('\n').join('\ndata: ') : event.data;
  return event.event === undefined
    ? `data: ${data}\n\n`
    : `event: ${event.event}\ndata: ${data}\n\n`;
}
