/**
 * Mock upstream for the bench (run as its own process): answers POST /v1/chat/completions,
 * POST /v1/messages, POST /v1/responses and the Gemini API's generateContent routes with fixed JSON, or fixed SSE when the body asks for `"stream": true`; an
 * evaluation judge call gets a fixed tool call. Bedrock's InvokeModel routes answer the same
 * message, streamed as an AWS event stream (mock-upstream-bedrock.ts). POST /v1/audio/transcriptions is read and counted,
 * never kept, and answered with OpenAI's `{text, usage: {type: "duration", seconds}}`.
 * Env: PORT; MOCK_LATENCY_MS (wait before the answer's first byte); MOCK_CHUNK_INTERVAL_MS
 * (pause between SSE events); MOCK_WRITES=one (default) answers a whole stream in one write,
 * like an upstream whose events arrive in one read, or per-event (one write per event; the
 * per-event writes add system calls to the floor that the gateway pays too); MOCK_IMAGE_JOB_MS
 * (how long a job-style image generation stays pending, mock-upstream-images.ts). Listens on
 * 127.0.0.1 only.
 */
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import {
  CHAT_JSON,
  CHAT_SSE,
  EVALUATION_JSON,
  MESSAGES_JSON,
  MESSAGES_SSE,
} from './mock-upstream-bodies.ts';
import { BEDROCK_INVOKE_PATH, BEDROCK_INVOKE_STREAM } from './mock-upstream-bedrock.ts';
import { answerImageRequest } from './mock-upstream-images.ts';
import { RESPONSES_JSON, RESPONSES_SSE } from './mock-upstream-responses.ts';
import { GEMINI_JSON, GEMINI_ROUTE, GEMINI_SSE } from './mock-upstream-gemini.ts';

const latencyMs = Number(process.env.MOCK_LATENCY_MS ?? 0);
const chunkIntervalMs = Number(process.env.MOCK_CHUNK_INTERVAL_MS ?? 0);
const oneWrite = (process.env.MOCK_WRITES ?? 'one') === 'one';
const STREAM_FLAG = /"stream"\s*:\s*true/;
/** An evaluation judge call forces this tool. */
const JUDGE_TOOL = /"name"\s*:\s*"submit_answers"/;

function sendJson(response: ServerResponse, body: string): void {
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

function sendSse(response: ServerResponse, events: string[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (chunkIntervalMs <= 0) {
    if (oneWrite) {
      response.end(events.join(''));
      return;
    }
    for (const chunk of events) response.write(chunk);
    response.end();
    return;
  }
  let index = 0;
  const next = () => {
    if (response.destroyed) return;
    const chunk = events[index++];
    if (chunk === undefined) {
      response.end();
      return;
    }
    response.write(chunk);
    setTimeout(next, chunkIntervalMs);
  };
  next();
}

/** The stream as Bedrock frames it, in one write or one per event like the SSE answers. */
function sendEventStream(response: ServerResponse, frames: Buffer[]): void {
  response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
  if (oneWrite) {
    response.end(Buffer.concat(frames));
    return;
  }
  for (const frame of frames) response.write(frame);
  response.end();
}

const server = createServer((request, response) => {
  const parts: Buffer[] = [];
  // Uploads of 25 MiB are counted as they pass, so the mock's memory stays out of the figures.
  const counting = request.url?.startsWith('/v1/audio/transcriptions') === true;
  let received = 0;
  request.on('data', (part: Buffer) => {
    received += part.length;
    if (!counting) parts.push(part);
  });
  request.on('end', () => {
    const text = Buffer.concat(parts).toString('utf8');
    const stream = STREAM_FLAG.test(text);
    const answer = () => {
      if (answerImageRequest(request, response, Number(process.env.PORT))) return;
      if (request.method !== 'POST') return sendJson(response, '{"ok":true}');
      if (request.url?.startsWith('/v1/chat/completions')) {
        return stream ? sendSse(response, CHAT_SSE) : sendJson(response, CHAT_JSON);
      }
      if (request.url?.startsWith('/v1/messages')) {
        if (JUDGE_TOOL.test(text)) return sendJson(response, EVALUATION_JSON);
        return stream ? sendSse(response, MESSAGES_SSE) : sendJson(response, MESSAGES_JSON);
      }
      const path = request.url?.split('?')[0] ?? '';
      const bedrock = BEDROCK_INVOKE_PATH.exec(path);
      if (bedrock !== null) {
        return bedrock[1] === undefined
          ? sendJson(response, MESSAGES_JSON)
          : sendEventStream(response, BEDROCK_INVOKE_STREAM);
      }
      if (counting) {
        const text = JSON.stringify({ text: `received ${received} bytes` });
        return sendJson(
          response,
          `${text.slice(0, -1)},"usage":{"type":"duration","seconds":${Math.ceil(received / 22_050)}}}`,
        );
      }
      // Gemini streams by its route, not by a body flag.
      const gemini = GEMINI_ROUTE.exec(request.url ?? '');
      if (gemini !== null) {
        return gemini[1] === 'streamGenerateContent'
          ? sendSse(response, GEMINI_SSE)
          : sendJson(response, GEMINI_JSON);
      }
      if (request.url?.startsWith('/v1/responses')) {
        return stream ? sendSse(response, RESPONSES_SSE) : sendJson(response, RESPONSES_JSON);
      }
      response.writeHead(404).end();
    };
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
