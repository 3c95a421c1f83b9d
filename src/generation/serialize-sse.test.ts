import { describe, expect, it } from 'vitest';

import { serializeSurfaceEvent, serializeUpstreamEvent, splitSseFrames } from './serialize-sse.ts';

describe('splitSseFrames', () => {
  it('gives back each frame of a chunk as it was written', () => {
    const frames = [
      serializeSurfaceEvent({ event: 'message_start', data: { type: 'message_start' } }),
      serializeUpstreamEvent({ event: 'ping', data: 'line one\nline two' }),
      serializeSurfaceEvent({ data: { text: 'a blank line inside:\n\nstays escaped' } }),
      serializeSurfaceEvent({ data: '[DONE]' }),
    ];
    expect(splitSseFrames(frames.join(''))).toEqual(frames);
    expect(splitSseFrames(frames[1] as string)).toEqual([frames[1]]);
    expect(splitSseFrames('')).toEqual([]);
  });
});
