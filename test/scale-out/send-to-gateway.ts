import { request } from 'undici';

export interface GatewayAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/** One HTTP call to a gateway process, its body read whole. */
export async function sendToGateway(
  url: string,
  options: {
    method?: 'GET' | 'POST';
    token: string;
    body?: unknown;
    headers?: Record<string, string>;
  },
): Promise<GatewayAnswer> {
  const response = await request(url, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${options.token}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const buffer = Buffer.from(await response.body.arrayBuffer());
  const headers = Object.fromEntries(
    Object.entries(response.headers).map(([name, value]) => [name, String(value)]),
  );
  return {
    status: response.statusCode,
    headers,
    text: buffer.toString('latin1'),
    json: <T>() => JSON.parse(buffer.toString('utf8')) as T,
  };
}

/** A chat call as clients send them, with a prompt of its own (no conversation pin steers it). */
export function chatBody(model: string, prompt: string): Record<string, unknown> {
  return { model, max_tokens: 16, messages: [{ role: 'user', content: prompt }] };
}

/** The outcome of one call of a load: its status, or the transport error's code. */
export interface LoadOutcome {
  gateway: string;
  status: number | string;
  requestId: string | undefined;
}

/**
 * Sends calls from `workers` clients at once until `stop()` is called, each to the next gateway
 * of `rotation()` — the processes a reverse proxy would send to at that moment — with the tokens
 * taken in turn. Resolves `stop()` once every call in flight has ended, with every outcome.
 */
export function runLoad(options: {
  rotation(): string[];
  tokens: string[];
  workers: number;
  model: string;
  path?: string;
}): { stop(): Promise<LoadOutcome[]>; inFlight(gateway: string): number } {
  const outcomes: LoadOutcome[] = [];
  const inFlight = new Map<string, number>();
  let running = true;
  let turn = 0;
  const worker = async () => {
    while (running) {
      turn += 1;
      const targets = options.rotation();
      const gateway = targets[turn % targets.length] as string;
      const token = options.tokens[turn % options.tokens.length] as string;
      inFlight.set(gateway, (inFlight.get(gateway) ?? 0) + 1);
      try {
        const answer = await sendToGateway(`${gateway}${options.path ?? '/v1/chat/completions'}`, {
          token,
          body: chatBody(options.model, `load call ${turn}`),
        });
        outcomes.push({
          gateway,
          status: answer.status,
          requestId: answer.headers['x-request-id'],
        });
      } catch (error) {
        const code = (error as { code?: string }).code ?? String(error);
        outcomes.push({ gateway, status: code, requestId: undefined });
      } finally {
        inFlight.set(gateway, (inFlight.get(gateway) ?? 1) - 1);
      }
    }
  };
  const done = Promise.all(Array.from({ length: options.workers }, worker));
  return {
    async stop() {
      running = false;
      await done;
      return outcomes;
    },
    inFlight: (gateway) => inFlight.get(gateway) ?? 0,
  };
}
