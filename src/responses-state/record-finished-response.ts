import type { GenerationReply } from '../generation/generation-service.ts';
import {
  readFinishedResponseBody,
  readFinishedStreamFrames,
  type FinishedResponse,
} from './read-finished-response.ts';

type RecordFinished = (finished: FinishedResponse) => Promise<void>;

/**
 * Keeps the finished response before the client learns it is finished: the terminal event is
 * held back until `record` resolved, so a next request naming this response always finds it.
 * A stream the client abandons is never recorded (its generator is returned early).
 */
async function* recordAtTerminalEvent(
  events: AsyncGenerator<string>,
  record: RecordFinished,
): AsyncGenerator<string> {
  for await (const chunk of events) {
    const finished = readFinishedStreamFrames(chunk);
    if (finished !== undefined) await record(finished);
    yield chunk;
  }
}

/** The reply with its finished response (completed or incomplete) passed to `record`. */
export async function recordFinishedResponse(
  reply: GenerationReply,
  record: RecordFinished,
): Promise<GenerationReply> {
  if (reply.kind === 'stream') {
    return { ...reply, events: recordAtTerminalEvent(reply.events, record) };
  }
  const finished = readFinishedResponseBody(reply.body);
  if (finished !== undefined) await record(finished);
  return reply;
}
