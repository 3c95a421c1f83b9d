import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The connections that have not sent a byte yet, closed when the gateway closes
 * (docs/decisions/0130).
 *
 * Node counts a connection as busy from the moment it is accepted, so that its headers timeout
 * runs, and `closeIdleConnections` (what `server.close()` and Fastify's close call) leaves it
 * open; `server.close()` also stops the timer that would expire it. A connection that never sends
 * a request then holds the close until its client lets go. Clients do open such connections:
 * undici opens a new one after a request is aborted mid-answer and keeps it for its keep-alive
 * timeout (70 s against this server), browsers and proxies open them ahead of use.
 *
 * A connection that has sent nothing carries no request to finish: closing it loses nothing, just
 * as closing an idle keep-alive connection loses nothing. Once closing has begun, a connection
 * accepted before the listener stops is closed at once as well.
 */
export class UnusedConnections {
  readonly #open = new Set<Socket>();
  #closing = false;

  constructor(server: Server) {
    // One entry per connection, not per request, and it leaves with its connection.
    server.on('connection', (socket: Socket) => {
      if (this.#closing) {
        socket.destroy();
        return;
      }
      this.#open.add(socket);
      socket.once('close', () => this.#open.delete(socket));
    });
  }

  /** Closes every connection that has not sent a byte, and any accepted from now on. */
  close(): void {
    this.#closing = true;
    for (const socket of this.#open) {
      if (socket.bytesRead === 0) socket.destroy();
    }
  }
}
