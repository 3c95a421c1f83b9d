import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';

import { isAwaitingContinue } from './defer-continue.ts';

/**
 * The bounds of the read after an early refusal, counted from the answer (docs/decisions/0110).
 * After `bytes` the gateway stops reading (the client's writes stall) but does not reset: what
 * socket buffers held before the answer can exceed them while the client has not yet read it.
 * A client that sends nothing for `idleMilliseconds` has stopped sending; `milliseconds` is the
 * longest a connection lingers, what a client on a slow or busy machine needs to read the answer.
 */
export const lingerLimits = {
  bytes: 8 * 1024 * 1024,
  milliseconds: 5_000,
  idleMilliseconds: 2_000,
} as const;

const lingering = Symbol('switchyard.lingering');

interface LingeringSocket extends Socket {
  [lingering]?: true;
}

/**
 * A bounded "lingering close" for a request answered before its body arrived, which is then
 * closed (`connection: close`). Closing a socket with unread bytes makes the kernel reset the
 * connection, and the reset can reach the client, still writing its body, before it has read
 * the answer: it then reports a connection error instead of the status. So after the answer,
 * the gateway's side is shut down for writing and the body keeps being read and thrown away,
 * never buffered, until it ends, the client closes, or a bound of `lingerLimits` is reached;
 * only then is the socket destroyed. A client that waits for `100 Continue` has sent no body: it is closed at
 * once, as before.
 */
export function lingerAfterRefusal(request: IncomingMessage): void {
  const socket = request.socket as LingeringSocket | null;
  // Injected requests (tests) have no real socket; a second refusal adds nothing.
  if (!(socket instanceof Socket) || socket[lingering] === true) return;
  if (request.complete || isAwaitingContinue(request)) return;
  socket[lingering] = true;

  // Whatever was reading the body (a multipart parser, the JSON reader) is done with it. The
  // bounds count from the moment the answer is written; until then the body is only thrown away.
  request.unpipe();
  request.removeAllListeners('data');
  let answered = false;
  let discarded = 0;
  let idle: NodeJS.Timeout | undefined;
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (answered && discarded > lingerLimits.bytes) {
      // Enough read: stop reading rather than reset. The client's writes stall, a client that
      // reads the answer gives up, and the time bound closes the connection of one that does
      // not. Node stops reading the socket once the paused request's small buffer is full.
      request.pause();
      clearTimeout(idle);
      return;
    }
    idle?.refresh();
  });
  request.once('end', () => {
    // The whole body is read: nothing is left to reset the connection, so Node's own close
    // (after the answer, if it is still to come) is safe.
    if (answered) socket.destroy();
    else Reflect.deleteProperty(socket, 'destroySoon');
  });
  request.resume();

  // Node destroys a connection that is not kept alive with destroySoon() once the answer is
  // written: end() then destroy(), which is what resets it while the body is still coming.
  socket.destroySoon = function lingerThenDestroy(this: Socket) {
    answered = true;
    discarded = 0;
    if (this.writable) this.end();
    const destroy = () => this.destroy();
    const timer = setTimeout(destroy, lingerLimits.milliseconds);
    idle = setTimeout(destroy, lingerLimits.idleMilliseconds);
    this.once('close', () => {
      clearTimeout(timer);
      clearTimeout(idle);
    });
  };
}
