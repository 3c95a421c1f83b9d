import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { serializeSseFrame } from './sse-frame.ts';
import type { SseFrame } from './sse-frame.ts';

export interface StreamTiming {
  delayMs?: number | undefined;
  chunkDelayMs?: number | undefined;
  cutAfterEvents?: number | undefined;
  cutMode?: 'destroy' | 'end' | undefined;
  /** The event at this index is sent with its JSON cut in half (a broken frame). */
  brokenFrameAt?: number | undefined;
  /** Called before the fake cuts the stream itself, so the cut is not taken for a client abort. */
  onCut?: () => void;
}

function gone(response: ServerResponse): boolean {
  return response.destroyed || response.writableEnded;
}

/** Waits until the frame reached the socket, so a later cut cannot discard it. */
function writeFrame(response: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('close', done);
      resolve();
    };
    response.once('close', done);
    response.write(text, done);
  });
}

export async function writeJsonReply(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: unknown,
  delayMs = 0,
): Promise<void> {
  if (delayMs > 0) await sleep(delayMs);
  if (gone(response)) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
}

export async function writeSseReply(
  response: ServerResponse,
  headers: Record<string, string>,
  frames: SseFrame[],
  timing: StreamTiming,
): Promise<void> {
  if ((timing.delayMs ?? 0) > 0) await sleep(timing.delayMs);
  if (gone(response)) return;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...headers,
  });
  response.flushHeaders();
  for (const [index, frame] of frames.entries()) {
    if (index === timing.cutAfterEvents) {
      timing.onCut?.();
      // `destroy` resets the connection mid-body; `end` closes the body cleanly but early.
      if (timing.cutMode === 'end') response.end();
      else response.destroy();
      return;
    }
    if (index > 0 && (timing.chunkDelayMs ?? 0) > 0) await sleep(timing.chunkDelayMs);
    if (gone(response)) return;
    const sent =
      index === timing.brokenFrameAt
        ? { ...frame, data: frame.data.slice(0, Math.floor(frame.data.length / 2)) }
        : frame;
    await writeFrame(response, serializeSseFrame(sent));
  }
  response.end();
}
