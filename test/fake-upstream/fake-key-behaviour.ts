import type { FakeErrorReply } from './fake-reply.ts';

/**
 * A standing rule for every request that presents one upstream key (see `presentedKey`), on
 * every known route, until it is changed or cleared. A request under a rule of the first or
 * third kind leaves the reply queue alone; under a delay it takes its reply as usual.
 *
 * - an error (`{ status: 429, headers: { 'retry-after': '30' } }`, 401, 402, 403, 500, 503…):
 *   answered in the route's dialect like a queued error, `headers` added;
 * - `{ delayMs }`: the usual reply, its status line held back this much longer;
 * - `{ dropConnection: true }`: the socket is closed without an answer (after `delayMs` if
 *   given), which the caller sees as a transport failure.
 */
export type FakeKeyBehaviour =
  | FakeErrorReply
  | { status?: undefined; delayMs: number }
  | { status?: undefined; dropConnection: true; delayMs?: number };
