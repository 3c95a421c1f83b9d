/**
 * The bench mock's job-style image upstream (BFL's wire format, docs/images.md): POST
 * /v1/<model> answers `{id, polling_url}`; the job is `Pending` until MOCK_IMAGE_JOB_MS have
 * passed since the submit, then `Ready` with a sample URL that serves a fixed small PNG.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { deflateSync } from 'node:zlib';

const jobMs = Number(process.env.MOCK_IMAGE_JOB_MS ?? 2000);
const submitted = new Map<string, number>();
let counter = 0;

const crcTable = Array.from({ length: 256 }, (_, index) => {
  let value = index;
  for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  let crc = 0xffffffff;
  for (const byte of body) crc = (crcTable[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  const framing = Buffer.alloc(8);
  framing.writeUInt32BE(data.length, 0);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE((crc ^ 0xffffffff) >>> 0);
  return Buffer.concat([framing.subarray(0, 4), body, tail]);
}

/** A 64×64 grey PNG, about what a thumbnail weighs. */
const sample = (() => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(64, 0);
  header.writeUInt32BE(64, 4);
  header[8] = 8;
  header[9] = 2;
  const rows = Buffer.alloc(64 * (64 * 3 + 1), 0x80);
  for (let row = 0; row < 64; row += 1) rows[row * (64 * 3 + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
})();

function sendJson(response: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** Answers an image request; false when the request is not one. */
export function answerImageRequest(
  request: IncomingMessage,
  response: ServerResponse,
  port: number,
): boolean {
  const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
  if (request.method === 'POST' && url.pathname === '/v1/bench-flux') {
    counter += 1;
    const id = `job-${counter}`;
    submitted.set(id, Date.now());
    sendJson(response, { id, polling_url: `${url.origin}/v1/get_result?id=${id}` });
    return true;
  }
  if (request.method === 'GET' && url.pathname === '/v1/get_result') {
    const id = url.searchParams.get('id') ?? '';
    const at = submitted.get(id);
    if (at === undefined) sendJson(response, { id, status: 'Task not found' });
    else if (Date.now() - at < jobMs) sendJson(response, { id, status: 'Pending', result: null });
    else
      sendJson(response, {
        id,
        status: 'Ready',
        result: { sample: `${url.origin}/samples/${id}` },
      });
    return true;
  }
  if (request.method === 'GET' && url.pathname.startsWith('/samples/')) {
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': sample.length });
    response.end(sample);
    return true;
  }
  return false;
}
