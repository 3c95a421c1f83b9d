import OpenAI from 'openai';
import type { ResponsesClientEvent } from 'openai/resources/responses/responses';
import { ResponsesWS } from 'openai/resources/responses/ws';
import type { RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import {
  modelPerDialect,
  startUpstreamTestBed,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';

/** One model per upstream dialect. */
export const wsModels = {
  anthropic: 'ws-via-anthropic',
  chat: 'ws-via-chat',
  responses: 'ws-via-responses',
} as const;

export interface WebSocketTestBed extends UpstreamTestBed {
  /** A connected SDK client; closed with the bed. */
  connect(token?: string): ResponsesWS;
  /** The generation requests the fake upstream received, in order. */
  generationRequests(): RecordedRequest[];
  close(): Promise<void>;
}

export async function startWebSocketTestBed(): Promise<WebSocketTestBed> {
  const bed = await startUpstreamTestBed({ ...modelPerDialect(wsModels), listen: true });
  const { fake, origin, token } = bed;
  const sockets: ResponsesWS[] = [];
  return {
    ...bed,
    connect(bearer = token) {
      const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: bearer, maxRetries: 0 });
      const socket = new ResponsesWS(client);
      // The SDK rejects unhandled error events; tests read them from `turn()`.
      socket.on('error', () => {});
      sockets.push(socket);
      return socket;
    },
    generationRequests: () => fake.requests.filter((request) => request.dialect !== undefined),
    async close() {
      for (const socket of sockets) {
        try {
          socket.close();
        } catch {
          // Already closed.
        }
      }
      await bed.close();
    },
  };
}

/** A server event as JSON; error frames carry `status` and `error`. */
export type ServerEvent = Record<string, unknown> & { type: string };

const terminal = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Sends one `response.create` and collects the server events of that turn, up to and including
 * its terminal event or error frame.
 */
export async function turn(
  socket: ResponsesWS,
  event: Omit<ResponsesClientEvent, 'type'> & Record<string, unknown>,
): Promise<ServerEvent[]> {
  const messages = socket.stream();
  socket.send({ type: 'response.create', ...event } as ResponsesClientEvent);
  const events: ServerEvent[] = [];
  try {
    for await (const message of messages) {
      if (message.type === 'message') {
        const data = message.message as unknown as ServerEvent;
        events.push(data);
        if (terminal.has(data.type)) break;
      } else if (message.type === 'error') {
        events.push(
          (message.error.error ?? { type: 'error', message: message.error.message }) as ServerEvent,
        );
        break;
      } else if (message.type === 'close') {
        events.push({ type: 'close', code: message.code });
        break;
      }
    }
  } finally {
    await messages.return?.();
  }
  return events;
}
