import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { encodePng, jpegBytes, pixelsFor } from './png-bytes.ts';

export interface RecordedImageRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | undefined;
}

/** A scripted answer to the next submit (either wire format). */
export interface FakeImageFailure {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeImageUpstream {
  url: string;
  requests: RecordedImageRequest[];
  /** Every image produced, by the order it was made: what a download must equal. */
  produced: Buffer[];
  /** Answers the next submits with these failures, in order. */
  failures: FakeImageFailure[];
  /** While true, every BFL job stays `Pending`. */
  holdJobs: boolean;
  /** How many polls answer `Pending` before `Ready` (default 1). */
  pollsBeforeReady: number;
  /** Answers a job with this status instead of `Ready` (e.g. `Content Moderated`). */
  finalStatus: string | undefined;
  /**
   * Requests this matches are recorded and then held unanswered until `resumeStalled` (a call
   * in flight when a test kills or stops the gateway); `onStall` is told of each.
   */
  stall: ((method: string, path: string) => boolean) | undefined;
  onStall: (() => void) | undefined;
  /** Answers the held requests as if they had just arrived. */
  resumeStalled(): void;
  /** Count of submits per wire format. */
  submits(kind: 'openai' | 'bfl'): number;
  close(): Promise<void>;
}

/** A file part of a multipart body as it arrived. */
export interface ReceivedFile {
  filename: string;
  type: string;
  bytes: Buffer;
}

/**
 * The body as JSON, or a multipart body as its text fields with each file field as the list of
 * files sent under that name (OpenAI's edits endpoint: `image[]`).
 */
async function readBody(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  const raw = Buffer.concat(chunks);
  const type = String(request.headers['content-type'] ?? '');
  if (!type.startsWith('multipart/form-data')) {
    return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  }
  const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
  const body: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') {
      body[name] = value;
      continue;
    }
    const files = (body[name] as ReceivedFile[] | undefined) ?? [];
    files.push({
      filename: value.name,
      type: value.type,
      bytes: Buffer.from(await value.arrayBuffer()),
    });
    body[name] = files;
  }
  return body;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function isOpenAiPath(path: string): boolean {
  return path === '/v1/images/generations' || path === '/v1/images/edits';
}

/**
 * A fake image upstream speaking both wire formats the gateway knows: OpenAI's
 * POST /v1/images/generations (JSON) and /v1/images/edits (multipart, `image[]` files) answering
 * `b64_json`, and BFL's POST /v1/<model> → `{id,
 * polling_url}`, GET polling_url → `{status, result: {sample}}`, GET sample → the bytes. Images
 * are real PNGs (or minimal JPEGs), each different.
 */
export async function startFakeImageUpstream(): Promise<FakeImageUpstream> {
  const jobs = new Map<string, { polls: number; format: string; image?: Buffer }>();
  let counter = 0;
  const stalled: Array<() => void> = [];
  const makeImage = (format: unknown): Buffer => {
    counter += 1;
    const image =
      format === 'jpeg' ? jpegBytes(`image ${counter}`) : encodePng(4, 3, pixelsFor(4, 3, counter));
    fake.produced.push(image);
    return image;
  };
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const body = request.method === 'POST' ? await readBody(request) : undefined;
      fake.requests.push({
        method: request.method ?? '',
        path: url.pathname,
        headers: request.headers,
        body,
      });
      if (fake.stall?.(request.method ?? '', url.pathname) === true) {
        fake.onStall?.();
        await new Promise<void>((resolve) => stalled.push(resolve));
      }
      if (request.method === 'POST') {
        const failure = fake.failures.shift();
        if (failure !== undefined) {
          sendJson(
            response,
            failure.status,
            failure.body ?? { error: { message: 'scripted' } },
            failure.headers,
          );
          return;
        }
      }
      if (request.method === 'POST' && isOpenAiPath(url.pathname)) {
        // A multipart body (edits) carries every field as text.
        const count = Number(body?.n ?? 1);
        const data = Array.from({ length: count }, () => ({
          b64_json: makeImage(body?.output_format).toString('base64'),
        }));
        sendJson(response, 200, { created: Math.floor(Date.now() / 1000), data });
        return;
      }
      // BFL's submit is POST /v1/<model>: a deeper path (a baseUrl ending in /v1) is no route.
      if (request.method === 'POST' && /^\/v1\/[^/]+$/.test(url.pathname)) {
        const id = `bfl-${(jobs.size + 1).toString().padStart(4, '0')}-${Math.random().toString(16).slice(2, 8)}`;
        jobs.set(id, { polls: 0, format: String(body?.output_format ?? 'png') });
        sendJson(response, 200, { id, polling_url: `${fake.url}/v1/get_result?id=${id}` });
        return;
      }
      if (request.method === 'GET' && url.pathname === '/v1/get_result') {
        const id = url.searchParams.get('id') ?? '';
        const job = jobs.get(id);
        if (job === undefined) {
          sendJson(response, 200, { id, status: 'Task not found' });
          return;
        }
        job.polls += 1;
        if (fake.holdJobs || job.polls <= fake.pollsBeforeReady) {
          sendJson(response, 200, { id, status: 'Pending', result: null, progress: 0.5 });
          return;
        }
        if (fake.finalStatus !== undefined) {
          sendJson(response, 200, { id, status: fake.finalStatus, result: null });
          return;
        }
        job.image ??= makeImage(job.format);
        sendJson(response, 200, {
          id,
          status: 'Ready',
          result: { sample: `${fake.url}/samples/${id}`, prompt: 'x' },
        });
        return;
      }
      if (request.method === 'GET' && url.pathname.startsWith('/samples/')) {
        const job = jobs.get(url.pathname.slice('/samples/'.length));
        if (job?.image === undefined) {
          response.writeHead(404).end();
          return;
        }
        response.writeHead(200, {
          'content-type': job.format === 'jpeg' ? 'image/jpeg' : 'image/png',
        });
        response.end(job.image);
        return;
      }
      sendJson(response, 404, { error: { message: 'no such route' } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeImageUpstream = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    produced: [],
    failures: [],
    holdJobs: false,
    pollsBeforeReady: 1,
    finalStatus: undefined,
    stall: undefined,
    onStall: undefined,
    resumeStalled() {
      for (const resume of stalled.splice(0)) resume();
    },
    submits(kind) {
      return fake.requests.filter(
        (request) =>
          request.method === 'POST' && (kind === 'openai') === isOpenAiPath(request.path),
      ).length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
