import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from '@fastify/websocket';
import type { TSchema } from 'typebox';
import type { RawData } from 'ws';
import type { Authenticator, Principal } from '../../auth/authenticator.ts';
import { readCredential } from '../../auth/authenticator.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { GenerationReply, GenerationService } from '../../generation/generation-service.ts';
import { splitSseFrames } from '../../generation/serialize-sse.ts';
import { planFailureLogLine } from '../../logging/plan-failure-log-line.ts';
import type { ObservedCall } from '../../observability/call-observer.ts';
import {
  expandResponseAppend,
  type AppendableTurn,
} from '../../responses-state/expand-response-append.ts';
import { readSseData } from '../../responses-state/read-finished-response.ts';
import { renderResponsesErrorEvent } from '../../responses-state/render-responses-error-event.ts';
import { ResponsesConnectionHistory } from '../../responses-state/responses-connection-history.ts';
import type { ResponsesState } from '../../responses-state/responses-state.ts';
import { AbortHandle } from '../../shared/abort-handle.ts';
import { parseUntrustedJson } from '../../shared/parse-json.ts';
import type { SurfaceCodec } from '../../surfaces/surface-codec.ts';
import { completionLogFields } from '../completion-log-fields.ts';
import { recordRequestMetrics, type HttpMetrics } from '../http-metrics.ts';
import { requireToken } from '../require-token.ts';
import { toDependencyError } from '../install-error-handling.ts';
import { parseClientJson } from '../parse-client-json.ts';
import { copyWith } from '../../shared/copy-with.ts';

export interface ResponsesWebSocketRouteDependencies {
  authenticator: Authenticator;
  generation: GenerationService;
  responsesState: ResponsesState;
  /** The responses surface. */
  surface: SurfaceCodec;
  /** The responses request schema; a `response.create` frame is validated against it. */
  requestSchema: TSchema;
  /** Largest accepted frame, as the HTTP body limit. */
  maxFrameBytes: number;
  /** Each turn counts as a request (method `WS`), as an HTTP request does. */
  metrics?: HttpMetrics;
  now?: () => number;
}

type ValidationFunction = ReturnType<FastifyRequest['compileValidationSchema']>;

/** Past this much unsent data a turn waits for the client to read before sending more. */
const sendHighWaterBytes = 1 << 20;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function frameText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** The same wording as an HTTP body that fails its schema (install-error-handling.ts). */
function describeInvalidFrame(validate: ValidationFunction): string {
  const problems = (validate.errors ?? []).map((issue) => {
    const where = `body${issue.instancePath.replaceAll('/', '.')}`;
    if (issue.keyword === 'required') {
      return `${where}.${String(issue.params.missingProperty)} is required`;
    }
    return `${where} ${issue.message ?? 'is invalid'}`;
  });
  return `Invalid request: ${problems.join('; ')}.`;
}

/** A whole response object answered as JSON becomes its terminal event. */
function jsonAsEvent(body: string): string {
  const response = parseUntrustedJson(body);
  const status = isRecord(response) ? String(response.status) : 'failed';
  const type = status === 'completed' || status === 'incomplete' ? status : 'failed';
  return JSON.stringify({ type: `response.${type}`, sequence_number: 0, response });
}

/** What one client event came to: the status it answered with and, when it generated, its bill. */
interface TurnResult {
  status: number;
  call?: ObservedCall;
}

/** A turn in progress, so a closing gateway can stop it and wait until it has settled. */
interface ActiveTurn {
  abort(): void;
  settled: Promise<void>;
}

/**
 * One responses WebSocket (docs/clients.md): `response.create` frames in (and Codex's
 * `response.append`, expand-response-append.ts), the streaming
 * events out as one JSON per text frame. Turns run one at a time, each through the generation
 * service exactly like a streamed HTTP request (limits, hold, settle, usage record); the
 * connection remembers its turns so `previous_response_id` works with `store: false`.
 */
function serveConnection(
  socket: WebSocket,
  request: FastifyRequest,
  dependencies: ResponsesWebSocketRouteDependencies,
  validate: ValidationFunction,
  activeTurns: Set<ActiveTurn>,
): void {
  const { authenticator, generation, responsesState } = dependencies;
  const now = dependencies.now ?? Date.now;
  const history = new ResponsesConnectionHistory();
  const turnHook = responsesState.connectionTurnHook(history);
  const token = readCredential(request.headers);
  // The route template, never the raw URL (http-metrics.ts).
  const route = request.routeOptions.url ?? 'unmatched';
  let running: Promise<void> | undefined;
  let turnAbort: AbortHandle | undefined;
  let turns = 0;
  /** What a `response.append` continues: the last turn, when it finished with a response. */
  let lastTurn: AppendableTurn | undefined;

  /** The same completion line and metrics as an HTTP request, one per client event. */
  const recordTurn = (requestId: string, result: TurnResult, startedAt: number) => {
    const elapsedMs = performance.now() - startedAt;
    const status = result.call?.status ?? result.status;
    request.server.log.child({ requestId }).info(
      {
        res: { statusCode: status },
        responseTime: elapsedMs,
        ...(result.call !== undefined ? completionLogFields(result.call) : {}),
      },
      'request completed',
    );
    if (dependencies.metrics !== undefined) {
      recordRequestMetrics(dependencies.metrics, {
        method: 'WS',
        route,
        status,
        seconds: elapsedMs / 1000,
      });
    }
  };

  const open = () => socket.readyState === socket.OPEN;
  const send = async (data: string): Promise<void> => {
    if (!open()) return;
    if (socket.bufferedAmount < sendHighWaterBytes) return socket.send(data);
    await new Promise<void>((resolve) => socket.send(data, () => resolve()));
  };
  const sendError = (error: ApiError) =>
    send(JSON.stringify(renderResponsesErrorEvent(error.toGenerationError())));

  /** The frame as a validated body and its `generate` flag, or the error to answer. */
  const readFrame = (
    data: RawData,
    isBinary: boolean,
  ): { body: Record<string, unknown>; generate: boolean; bytes: number } | ApiError => {
    if (isBinary) return new ApiError('invalid_request', 'Send each event as a JSON text frame.');
    const text = frameText(data);
    const bytes = Buffer.byteLength(text);
    if (bytes > dependencies.maxFrameBytes) return new ApiError('request_too_large');
    let frame: unknown;
    try {
      // The same checks as an HTTP body: no token in it (docs/api.md), a bounded depth.
      frame = parseClientJson(text, 'frame');
    } catch (error) {
      return error as ApiError;
    }
    if (
      !isRecord(frame) ||
      (frame.type !== 'response.create' && frame.type !== 'response.append')
    ) {
      const type = isRecord(frame) ? JSON.stringify(frame.type) : 'none';
      return new ApiError(
        'invalid_request',
        `Unsupported event type ${type}; this connection accepts response.create and response.append.`,
        { details: { param: 'type' } },
      );
    }
    if (frame.type === 'response.append') {
      const body = expandResponseAppend(frame, lastTurn);
      if (body instanceof ApiError) return body;
      if (!validate(body)) return new ApiError('invalid_request', describeInvalidFrame(validate));
      return { body, generate: true, bytes };
    }
    // `stream` is implied by the transport; `generate: false` asks for a prewarm (docs/clients.md).
    const { type: _type, generate, stream: _stream, ...body } = frame;
    if (generate !== undefined && typeof generate !== 'boolean') {
      return new ApiError('invalid_request', 'generate must be a boolean.', {
        details: { param: 'generate' },
      });
    }
    if (!validate(body)) return new ApiError('invalid_request', describeInvalidFrame(validate));
    return { body, generate: generate !== false, bytes };
  };

  const relay = async (reply: GenerationReply): Promise<void> => {
    if (reply.kind === 'json') return send(jsonAsEvent(reply.body));
    for await (const chunk of reply.events) {
      // Leaving the loop returns the stream: the turn is aborted and billed as delivered.
      if (!open()) break;
      for (const frame of splitSseFrames(chunk)) {
        const data = readSseData(frame);
        if (data !== undefined && data !== '[DONE]') await send(data);
      }
    }
  };

  const answerError = (error: ApiError, result: TurnResult) => {
    result.status = error.status;
    return sendError(error);
  };

  const runTurn = async (
    data: RawData,
    isBinary: boolean,
    requestId: string,
    result: TurnResult,
  ): Promise<void> => {
    const frame = readFrame(data, isBinary);
    if (frame instanceof ApiError) return answerError(frame, result);
    let principal: Principal;
    try {
      // Each turn checks the token again: a disabled token stops at its next turn.
      principal = await authenticator.authenticate(
        token,
        { permission: 'inference:create', interface: 'credits' },
        now(),
      );
    } catch (error) {
      if (error instanceof ApiError) await answerError(error, result);
      socket.close(1008, 'authentication failed');
      return;
    }
    const latestBefore = history.latest();
    lastTurn = undefined;
    // Called once the turn's events were sent: a new latest response is what an append continues.
    const rememberTurn = () => {
      const latest = history.latest();
      if (latest !== undefined && latest !== latestBefore) {
        lastTurn = { body: frame.body, responseId: latest };
      }
    };
    if (!frame.generate) {
      const events = await responsesState.prewarm(frame.body, principal, history);
      for (const event of events) await send(JSON.stringify(event));
      rememberTurn();
      return;
    }
    turnAbort = new AbortHandle();
    if (!open()) turnAbort.abort();
    const reply = await generation.generate({
      surface: dependencies.surface,
      body: copyWith(frame.body, { stream: true }),
      bodyBytes: frame.bytes,
      principal,
      headers: request.headers,
      requestId,
      signal: turnAbort,
      turnHook,
      onSettled: (call) => {
        result.call = call;
      },
    });
    await relay(reply);
    rememberTurn();
  };

  socket.on('message', (data: RawData, isBinary: boolean) => {
    if (running !== undefined) {
      // One response at a time, as the dialect's WebSocket mode; the client sends the next
      // response.create after the running one ended.
      void sendError(
        new ApiError(
          'conflict',
          'A response is already running on this connection; send the next response.create after it ends.',
        ),
      );
      return;
    }
    const active: ActiveTurn = { abort: () => turnAbort?.abort(), settled: Promise.resolve() };
    // Each client event is a request of its own, with its own id, log line and metrics.
    turns += 1;
    const requestId = `${request.id}.${turns}`;
    const startedAt = performance.now();
    const result: TurnResult = { status: 200 };
    active.settled = runTurn(data, isBinary, requestId, result)
      .catch(async (error: unknown) => {
        if (error instanceof ApiError) {
          // One line for an upstream's or the gateway's own failure (docs/decisions/0111).
          const line = planFailureLogLine(error, error);
          if (line !== undefined)
            request.log[line.level](line.fields, `WebSocket turn: ${line.message}`);
          return answerError(error, result);
        }
        const unavailable = toDependencyError(error);
        if (unavailable !== undefined) return answerError(unavailable, result);
        request.log.error({ err: error }, 'responses WebSocket turn failed');
        return answerError(new ApiError('internal'), result);
      })
      .finally(() => {
        recordTurn(requestId, result, startedAt);
        running = undefined;
        turnAbort = undefined;
        activeTurns.delete(active);
      });
    running = active.settled;
    activeTurns.add(active);
  });
  socket.on('close', () => turnAbort?.abort());
}

/**
 * The WebSocket upgrade on GET /v1/responses and /responses (docs/decisions/0012), authenticated
 * with the Bearer header at connection time: a refused token is an HTTP error before any upgrade.
 */
export async function responsesWebSocketRoutes(
  app: FastifyInstance,
  dependencies: ResponsesWebSocketRouteDependencies,
): Promise<void> {
  const authenticate = requireToken(dependencies.authenticator, 'inference:create', {
    ...(dependencies.now !== undefined ? { now: dependencies.now } : {}),
  });
  const activeTurns = new Set<ActiveTurn>();
  // A closing gateway stops the running turns and lets them settle before the stores close.
  app.addHook('onClose', async () => {
    for (const turn of activeTurns) turn.abort();
    await Promise.allSettled([...activeTurns].map((turn) => turn.settled));
  });

  for (const path of ['/v1/responses', '/responses']) {
    app.route({
      method: 'GET',
      url: path,
      onRequest: authenticate,
      schema: { hide: true },
      // Reached only without an upgrade.
      handler: async (_request, reply) => {
        reply.header('upgrade', 'websocket');
        throw new ApiError(
          'invalid_request',
          `GET ${path} accepts only a WebSocket upgrade; create a response with POST ${path}.`,
          { status: 426 },
        );
      },
      wsHandler: (socket, request) => {
        const validate = request.compileValidationSchema(dependencies.requestSchema, 'body');
        serveConnection(socket, request, dependencies, validate, activeTurns);
      },
    });
  }
}
