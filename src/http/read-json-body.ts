import { isAscii } from 'node:buffer';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../canonical/generation-error.ts';
import type { BodyByteBudget } from './body-byte-budget.ts';
import { acceptBody } from './defer-continue.ts';
import { parseClientJson } from './parse-client-json.ts';

export interface JsonBodyLimits {
  /** Largest body of one request (Fastify's bodyLimit). */
  bodyLimitBytes: number;
  /** Bytes of bodies being received at once, across all requests. */
  budget: BodyByteBudget;
}

type Done = (error: Error | null, value?: unknown) => void;

const jsonContentType = /^application\/([\w.+-]*\+)?json\s*(;.*)?$/i;

/**
 * JSON bodies only; a wrong content type is 415 (Fastify would otherwise parse text/plain).
 * The body is read here rather than by Fastify's own reader so that its bytes count against the
 * shared budget while they arrive (docs/operations.md): a body that would not fit is refused with
 * 503, a body over the per-request limit with 413, in both cases before it is buffered whole.
 */
export function installJsonBodyParser(app: FastifyInstance, limits: JsonBodyLimits): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(jsonContentType, (request: FastifyRequest, payload: Readable, done) =>
    readJsonBody(request, payload, limits, done as Done),
  );
}

function readJsonBody(
  request: FastifyRequest,
  payload: Readable,
  limits: JsonBodyLimits,
  done: Done,
): void {
  const { budget } = limits;
  // A route's own limit (evaluation: 512 KiB, docs/evaluation.md) wins over the server's. A body
  // that could never fit in the budget, even alone, is too large rather than early.
  const routeLimit = request.routeOptions.bodyLimit ?? limits.bodyLimitBytes;
  const bodyLimitBytes = Math.min(routeLimit, budget.limitBytes);
  const declared = Number(request.headers['content-length']);
  if (declared > bodyLimitBytes) {
    done(new ApiError('request_too_large'));
    return;
  }
  // A declared length is reserved whole, so a body that cannot fit is refused before any byte.
  let reserved = 0;
  if (declared > 0) {
    if (!budget.tryReserve(declared)) {
      done(budgetFull());
      return;
    }
    reserved = declared;
  }
  acceptBody(request.raw);

  const chunks: Buffer[] = [];
  let received = 0;
  const finish = (error: Error | null, value?: unknown) => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onAbort);
    payload.removeListener('close', onAbort);
    budget.release(reserved);
    reserved = 0;
    done(error, value);
  };
  function onData(chunk: Buffer) {
    received += chunk.length;
    if (received > bodyLimitBytes) {
      finish(new ApiError('request_too_large'));
      return;
    }
    // A chunked body (no content-length) reserves as it arrives.
    if (received > reserved) {
      if (!budget.tryReserve(received - reserved)) {
        finish(budgetFull());
        return;
      }
      reserved = received;
    }
    chunks.push(chunk);
  }
  function onEnd() {
    const text = decodeChunks(chunks, received);
    chunks.length = 0;
    let value: unknown;
    try {
      value = parseClientJson(text, 'body');
    } catch (error) {
      finish(error as Error);
      return;
    }
    finish(null, value);
  }
  // The client went away mid-body (or its stream failed): its mistake, never a 500 in the log.
  function onAbort() {
    finish(new ApiError('invalid_json', 'The request body ended before it was complete.'));
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onAbort);
  payload.on('close', onAbort);
}

function budgetFull(): ApiError {
  return new ApiError('bodies_in_flight_full', undefined, { retryAfter: 1 });
}

/**
 * The body's text. Bytes that are all ASCII read the same as Latin-1 and as UTF-8, and V8 copies
 * Latin-1 straight into a one-byte string: with the check, 10 µs against 18 µs for UTF-8 on an
 * 80 KB body. Anything else is decoded as UTF-8 (invalid sequences become U+FFFD, as before).
 */
function decodeBody(bytes: Buffer): string {
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/**
 * The body's text from the chunks it arrived in. When every chunk is ASCII no character spans two
 * of them, so each is decoded alone and the strings joined: a large body is not copied once more
 * into a buffer of its own, which lives outside the JavaScript heap until a collection frees it
 * and, a concurrent burst of them, grows the allocator's heap for the life of the process.
 */
function decodeChunks(chunks: Buffer[], received: number): string {
  if (chunks.length === 1) return decodeBody(chunks[0] as Buffer);
  if (!chunks.every((chunk) => isAscii(chunk))) return decodeBody(Buffer.concat(chunks, received));
  let text = '';
  for (const chunk of chunks) text += chunk.toString('latin1');
  return text;
}
