import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const pendingContinue = Symbol('switchyard.pendingContinue');

interface AwaitingContinue {
  [pendingContinue]?: ServerResponse | undefined;
}

/**
 * RFC 9110 §10.1.1: a client that sends `Expect: 100-continue` waits before sending its body.
 * Node answers 100 at once unless the server handles `checkContinue`; here the answer waits
 * until a body parser starts reading, so a request refused in onRequest (a bad token, a
 * credential in the URL) never makes the client send its body at all (docs/decisions/0026).
 */
export function deferContinue(server: Server): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    (request as AwaitingContinue)[pendingContinue] = response;
    server.emit('request', request, response);
  });
}

/** Tells a client waiting for `100 Continue` to send its body; nothing for any other request. */
export function acceptBody(request: IncomingMessage): void {
  const response = (request as AwaitingContinue)[pendingContinue];
  if (response === undefined) return;
  (request as AwaitingContinue)[pendingContinue] = undefined;
  if (!response.headersSent) response.writeContinue();
}

/** True while the client waits for `100 Continue`: it has not sent any of its body. */
export function isAwaitingContinue(request: IncomingMessage): boolean {
  return (request as AwaitingContinue)[pendingContinue] !== undefined;
}
