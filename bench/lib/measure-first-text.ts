/**
 * Time to first text on the slow upstream (docs/performance.md): a message-style client
 * (`POST /v1/messages`, `stream: true`) through the gateway towards each upstream dialect, next
 * to the slow mock's own first text in that dialect. A few requests one after another, each
 * timed with performance.now() from the request's start to its first text delta.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { SLOW_MODEL_BY_DIALECT } from './bench-targets.ts';
import type { BenchTargets, UpstreamDialect } from './bench-targets.ts';

export interface FirstTextSamples {
  dialect: UpstreamDialect;
  /** ms to the slow mock's first text event, asked directly in its own dialect. */
  upstreamMs: number[];
  /** ms to the first `text_delta` of a `/v1/messages` stream through the gateway. */
  gatewayMs: number[];
  /** Requests that answered other than 200, ended without text, or failed. */
  failures: number;
}

type Event = Record<string, unknown>;

interface Call {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Whether this decoded SSE `data:` payload carries answer text. */
  isText: (event: Event) => boolean;
}

const QUESTION = 'Give me one sentence about freight yards.';

const isMessagesText = (event: Event) => {
  const delta = event.delta as Event | undefined;
  return (
    event.type === 'content_block_delta' &&
    delta?.type === 'text_delta' &&
    typeof delta.text === 'string' &&
    delta.text !== ''
  );
};

function messagesBody(model: string): string {
  return JSON.stringify({
    model,
    max_tokens: 256,
    messages: [{ role: 'user', content: QUESTION }],
    stream: true,
  });
}

/** The slow mock asked directly in `dialect`: the upstream's own time to first text. */
function upstreamCall(targets: BenchTargets, dialect: UpstreamDialect): Call {
  const base = `http://127.0.0.1:${targets.slowMock.port}`;
  const headers = { 'content-type': 'application/json', authorization: 'Bearer sk-bench-upstream' };
  if (dialect === 'anthropic') {
    return {
      url: `${base}/v1/messages`,
      headers: { ...headers, 'anthropic-version': '2023-06-01' },
      body: messagesBody('claude-sonnet-4-5'),
      isText: isMessagesText,
    };
  }
  if (dialect === 'openai-chat') {
    return {
      url: `${base}/v1/chat/completions`,
      headers,
      body: JSON.stringify({
        model: 'gpt-4.1-mini',
        messages: [{ role: 'user', content: QUESTION }],
        stream: true,
      }),
      isText: (event) => {
        const choices = event.choices as { delta?: { content?: unknown } }[] | undefined;
        const content = choices?.[0]?.delta?.content;
        return typeof content === 'string' && content !== '';
      },
    };
  }
  return {
    url: `${base}/v1/responses`,
    headers,
    body: JSON.stringify({ model: 'gpt-4.1-mini', input: QUESTION, stream: true }),
    isText: (event) =>
      event.type === 'response.output_text.delta' &&
      typeof event.delta === 'string' &&
      event.delta !== '',
  };
}

function gatewayCall(targets: BenchTargets, dialect: UpstreamDialect): Call {
  return {
    url: `http://127.0.0.1:${targets.gateway.port}/v1/messages`,
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      authorization: `Bearer ${targets.gatewayToken}`,
    },
    body: messagesBody(SLOW_MODEL_BY_DIALECT[dialect]),
    isText: isMessagesText,
  };
}

/**
 * One request, read to its end (a stream that breaks after its first text is a failure too):
 * the ms from its start to the first SSE event that carries text.
 */
function timeFirstText(agent: Agent, call: Call): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstTextMs: number | undefined;
    let pending = '';
    const scan = () => {
      const frames = pending.split(/\r?\n\r?\n/);
      pending = frames.pop() ?? '';
      for (const frame of frames) {
        if (firstTextMs !== undefined) return;
        const data = frame
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data === '' || data === '[DONE]') continue;
        if (call.isText(JSON.parse(data) as Event)) firstTextMs = performance.now() - started;
      }
    };
    const sent = request(
      call.url,
      { method: 'POST', headers: call.headers, agent, timeout: 30_000 },
      (answer) => {
        answer.setEncoding('utf8');
        answer.on('data', (text: string) => {
          if (firstTextMs !== undefined) return;
          pending += text;
          try {
            scan();
          } catch (error) {
            answer.destroy(error instanceof Error ? error : new Error(String(error)));
          }
        });
        answer.on('error', reject);
        answer.on('end', () => {
          if (answer.statusCode !== 200) reject(new Error(`${call.url}: ${answer.statusCode}`));
          else if (firstTextMs === undefined) reject(new Error(`${call.url}: no text in stream`));
          else resolve(firstTextMs);
        });
      },
    );
    sent.on('timeout', () => sent.destroy(new Error(`${call.url}: no answer in 30 s`)));
    sent.on('error', reject);
    sent.end(call.body);
  });
}

/**
 * Per dialect: one unrecorded request through the gateway (cold code paths), then `requests`
 * pairs of upstream and gateway requests, alternating so both see the same state of the machine.
 */
export async function measureFirstText(
  targets: BenchTargets,
  requests: number,
): Promise<FirstTextSamples[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const dialects: UpstreamDialect[] = ['anthropic', 'openai-chat', 'openai-responses'];
  const results: FirstTextSamples[] = [];
  try {
    for (const dialect of dialects) {
      const samples: FirstTextSamples = { dialect, upstreamMs: [], gatewayMs: [], failures: 0 };
      const upstream = upstreamCall(targets, dialect);
      const gateway = gatewayCall(targets, dialect);
      const timed = async (call: Call, into?: number[]) => {
        try {
          const ms = await timeFirstText(agent, call);
          into?.push(ms);
        } catch {
          samples.failures += 1;
        }
      };
      await timed(gateway);
      for (let index = 0; index < requests; index++) {
        await timed(upstream, samples.upstreamMs);
        await timed(gateway, samples.gatewayMs);
      }
      results.push(samples);
    }
  } finally {
    agent.destroy();
  }
  return results;
}
