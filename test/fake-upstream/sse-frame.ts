/** One server-sent event as written on the wire (WHATWG HTML, "Server-sent events"). */
export interface SseFrame {
  event?: string;
  data: string;
}

export function jsonFrame(data: unknown, event?: string): SseFrame {
  return event === undefined
    ? { data: JSON.stringify(data) }
    : { event, data: JSON.stringify(data) };
}

export function serializeSseFrame(frame: SseFrame): string {
  const eventLine = frame.event === undefined ? '' : `event: ${frame.event}\n`;
  return `${eventLine}data: ${frame.data}\n\n`;
}
