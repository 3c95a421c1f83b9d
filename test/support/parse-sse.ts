import { createParser } from 'eventsource-parser';

export interface ServerSentEvent {
  /** The `event:` field; undefined when the frame had none (chat completions). */
  event: string | undefined;
  data: string;
}

/** Parses a whole SSE body; an unterminated last frame is dropped, as a client would drop it. */
export function parseServerSentEvents(text: string): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  const parser = createParser({
    onEvent: (message) => events.push({ event: message.event, data: message.data }),
  });
  parser.feed(text);
  return events;
}
