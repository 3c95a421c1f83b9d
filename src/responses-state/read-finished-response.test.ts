import { describe, expect, it } from 'vitest';
import {
  readFinishedResponseBody,
  readFinishedStreamFrames,
  readSseData,
} from './read-finished-response.ts';

const output = [{ id: 'msg_1', type: 'message', role: 'assistant', content: [] }];
const frame = (type: string, response: unknown) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: 7, response })}\n\n`;

describe('readSseData', () => {
  it('joins several data lines with newlines and ignores the other fields', () => {
    expect(readSseData('event: x\ndata: {"a":\ndata: 1}\n\n')).toBe('{"a":\n1}');
    expect(readSseData('data:[DONE]\n\n')).toBe('[DONE]');
    expect(readSseData(': keep-alive\n\n')).toBeUndefined();
  });
});

describe('readFinishedStreamFrames', () => {
  it('reads the response of response.completed and response.incomplete', () => {
    for (const [type, status] of [
      ['response.completed', 'completed'],
      ['response.incomplete', 'incomplete'],
    ] as const) {
      expect(readFinishedStreamFrames(frame(type, { id: 'resp_1', status, output }))).toEqual({
        id: 'resp_1',
        output,
      });
    }
  });

  it('ignores failed responses, other events and text that only mentions the event name', () => {
    const failed = { id: 'resp_1', status: 'failed', output };
    expect(readFinishedStreamFrames(frame('response.failed', failed))).toBeUndefined();
    const delta = `event: response.output_text.delta\ndata: ${JSON.stringify({
      type: 'response.output_text.delta',
      delta: 'response.completed',
    })}\n\n`;
    expect(readFinishedStreamFrames(delta)).toBeUndefined();
    expect(readFinishedStreamFrames('data: response.completed {broken\n\n')).toBeUndefined();
  });

  it('finds the finished response among the other frames of a chunk', () => {
    const delta = `event: response.output_text.delta\ndata: ${JSON.stringify({
      type: 'response.output_text.delta',
      delta: 'hi',
    })}\n\n`;
    const done = frame('response.completed', { id: 'resp_2', status: 'completed', output });
    expect(readFinishedStreamFrames(delta + done + delta)).toEqual({ id: 'resp_2', output });
  });
});

describe('readFinishedResponseBody', () => {
  it('reads a whole completed response object, and nothing from a failed one', () => {
    const body = JSON.stringify({ id: 'resp_2', object: 'response', status: 'completed', output });
    expect(readFinishedResponseBody(body)).toEqual({ id: 'resp_2', output });
    expect(
      readFinishedResponseBody(JSON.stringify({ id: 'resp_3', status: 'failed', output })),
    ).toBeUndefined();
    expect(readFinishedResponseBody('not json')).toBeUndefined();
  });
});
