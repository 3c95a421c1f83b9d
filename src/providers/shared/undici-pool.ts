import { createRequire } from 'node:module';
import type { IncomingHttpHeaders } from 'node:http';
import type * as Undici from 'undici';

/*
 * undici's package entry loads all of undici: fetch, WebSocket, EventSource, the HTTP cache,
 * mocks. The gateway uses its Pool and its error classes only, and the rest stayed in the heap
 * for the life of the process (about 2.7 MB, docs/performance.md). These are the same modules
 * the entry loads, so an error thrown here is an instance of `errors.X` imported from 'undici'
 * elsewhere, and a later import of the entry finds them loaded.
 */
const require = createRequire(import.meta.url);

const Dispatcher = require('undici/lib/dispatcher/dispatcher.js') as {
  prototype: Record<string, unknown>;
};
// What the entry does too: `request`, `stream`, `pipeline`… are methods of every dispatcher.
Object.assign(Dispatcher.prototype, require('undici/lib/api/index.js') as object);

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof Undici.Pool;
export type Pool = Undici.Pool;
export const errors = require('undici/lib/core/errors.js') as typeof Undici.errors;
/** undici's own reading of raw response headers (lower-case names, repeats as arrays). */
export const parseHeaders = (
  require('undici/lib/core/util.js') as {
    parseHeaders(headers: Buffer[]): IncomingHttpHeaders;
  }
).parseHeaders;
