import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

import type { FastifyReply } from 'fastify';

/**
 * Sends a streamed answer: each string the producer yields (the frames of one upstream read) is
 * written to the socket as it comes. Node's response corks the socket for the rest of the tick
 * on every write, so frames yielded within one tick still leave in one system call.
 *
 * The frames go straight to the response, not through a Readable piped into it: a stream and a
 * pipe cost every request their listeners and a few turns of the event loop, which the
 * benchmark profile showed on every streamed request. The reply is hijacked for that, so
 * Fastify's onResponse hooks still run (they listen on the response) but nothing re-serialises
 * the frames.
 *
 * The frames of one turn of the event loop leave together at its end (the check phase, where
 * `setImmediate` callbacks run), not as each producer step finishes. A stream's last frames and
 * its end then leave in one write: the end is written once the call's charge has committed
 * (docs/decisions/0096), which the group commit does in that same phase, and Node's `end()`
 * flushes the socket. Before, the last frames left at once and the end after the commit, a
 * second system call and wakeup of the client for every stream. A frame waits at most for the
 * rest of the turn it was produced in; if the commit is not done by then, the frames leave
 * without the end, as before.
 *
 * Backpressure holds the producer: it is not asked for more while the socket's buffer is full.
 * A client that goes away returns the producer, so its `finally` (settling the bill) runs; a
 * producer that throws ends the response abruptly, as a broken stream must.
 */
export function sendEventStream(reply: FastifyReply, frames: AsyncGenerator<string>): void {
  reply.hijack();
  const response = reply.raw;
  // Fastify's getHeaders holds only headers that were set, each a string, number or list.
  response.writeHead(reply.statusCode, reply.getHeaders() as OutgoingHttpHeaders);
  void pump(response, frames).catch((error: unknown) => {
    reply.log.warn({ err: error }, 'streamed answer failed');
    response.destroy();
  });
}

async function pump(response: ServerResponse, frames: AsyncGenerator<string>): Promise<void> {
  let closed = response.destroyed;
  let wake: (() => void) | undefined;
  const hold = new TurnHold(response);
  const onClose = () => {
    closed = true;
    wake?.();
  };
  const onDrain = () => wake?.();
  response.on('close', onClose);
  response.on('drain', onDrain);
  try {
    // Leaving the loop early (client gone) returns the producer.
    for await (const chunk of frames) {
      if (closed) break;
      hold.begin();
      if (!response.write(chunk)) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        if (closed) break;
      }
    }
  } finally {
    response.off('close', onClose);
    response.off('drain', onDrain);
  }
  if (!closed) response.end();
}

/**
 * Keeps a response's socket corked until the check phase of the current turn. Scheduled from
 * `process.nextTick`, which runs once the promise jobs queued so far have run: by then a
 * producer that finished has queued its charge, and the group commit's `setImmediate` comes
 * before this one.
 */
class TurnHold {
  readonly #response: ServerResponse;
  #held = false;
  readonly #release = (): void => {
    this.#held = false;
    const socket = this.#response.socket;
    // end() flushed and uncorked the socket already; it may be serving the next request.
    if (socket !== null && !this.#response.writableEnded) socket.uncork();
  };
  readonly #schedule = (): void => {
    setImmediate(this.#release);
  };

  constructor(response: ServerResponse) {
    this.#response = response;
  }

  begin(): void {
    const socket = this.#response.socket;
    if (this.#held || socket === null) return;
    this.#held = true;
    socket.cork();
    process.nextTick(this.#schedule);
  }
}
