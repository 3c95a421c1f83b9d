import type { GenerationCall } from '../canonical/generation-call.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { FinishReason } from '../canonical/finish-reason.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import type { Usage } from '../canonical/usage.ts';
import { chargeDeliveredUsage, type Delivered } from './charge-delivered-usage.ts';
import type { ProviderCodec, UpstreamEvent } from '../providers/provider-codec.ts';
import { isTimeout, type UpstreamResponse } from '../providers/shared/upstream-pool.ts';
import type { SurfaceCodec, SurfaceEncodeContext } from '../surfaces/surface-codec.ts';
import type { BillingSession, SessionEnd } from './billing-session.ts';
import type { PassthroughAdapter } from './passthrough-adapter.ts';
import type { PromptSizeAtStart } from './prompt-size-at-start.ts';
import { RelayedDeltaShape } from './relayed-delta-shape.ts';
import { serializeSurfaceEvent, serializeUpstreamFrame } from './serialize-sse.ts';
import { copyWith } from '../shared/copy-with.ts';

export interface StreamContext {
  surface: SurfaceCodec;
  encodeContext: SurfaceEncodeContext;
  /** The client's validated body, for stream options that live in it. */
  request: Record<string, unknown>;
  /** Puts the catalog model id into a relayed JSON text (rename-relayed-model.ts). */
  renameModel(json: string): string;
  session: BillingSession;
  /**
   * The prompt's local count (bound-prompt-tokens.ts): its input charge when the upstream never
   * said, counted only then.
   */
  countPrompt(): number;
  /** The output limit the upstream was sent: no estimate of a cut answer's output exceeds it. */
  outputLimit: number;
  deployment: string;
  /** The upstream's stream framing: server-sent events, or its transport's own. */
  readEventBatches(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent[]>;
  abort(): void;
  /** True once the client went away: a broken upstream read is then our own abort. */
  clientGone(): boolean;
  cleanup(): void;
}

function streamFailure(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isTimeout(error))
    return new ApiError(
      'upstream_error',
      'The upstream went silent for longer than the idle timeout.',
    );
  return new ApiError('upstream_error', `The upstream stream broke: ${(error as Error).message}`);
}

async function finish(context: StreamContext, end: SessionEnd): Promise<void> {
  context.cleanup();
  await context.session.end(end);
}

const brokenFrame = Symbol('broken frame');

/** A relayed event's data, parsed; `brokenFrame` when it is not JSON (chat's [DONE] aside). */
function parseRelayedData(data: string): unknown {
  if (data === '[DONE]' || data === '') return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return brokenFrame;
  }
}

/**
 * The client-dialect error event that ends a stream the gateway ends (docs/decisions/0016). After
 * relayed upstream events, which number themselves from 0, it continues their `sequence_number`.
 */
function errorFrames(context: StreamContext, error: ApiError, relayedEvents?: number): string {
  const encodeContext =
    relayedEvents === undefined
      ? context.encodeContext
      : { ...context.encodeContext, firstSequenceNumber: relayedEvents };
  const encoder = context.surface.createStreamEncoder(encodeContext, context.request);
  let frames = '';
  for (const event of encoder.encode({ type: 'error', error: error.toGenerationError() }))
    frames += serializeSurfaceEvent(event);
  return frames;
}

/**
 * Same dialect: relay each upstream event as it is, reading usage on the way. Every event is
 * checked, parsed or matched to the shape of a parsed delta (relayed-delta-shape.ts): one that is
 * not JSON would make the client's SDK throw, so the stream ends there with an error event in the
 * client's dialect instead, and the call is billed for what was delivered
 * (docs/decisions/0016), as on every other fault.
 */
export async function* relayStream(
  response: UpstreamResponse,
  context: StreamContext,
  adapter: PassthroughAdapter,
  dropUsageChunk: boolean,
): AsyncGenerator<string> {
  const tap = adapter.createUsageTap();
  const delivered: Delivered = { events: 0, characters: 0 };
  const shape =
    adapter.deltaSlot === undefined
      ? undefined
      : new RelayedDeltaShape(adapter.deltaSlot, context.renameModel);
  let outcome: SessionEnd['outcome'] = 'cancelled';
  try {
    // One string per upstream read, however many events it held: one await each.
    for await (const events of context.readEventBatches(response.body)) {
      let frames = '';
      for (const event of events) {
        // A delta of the shape learnt below: valid, and like that event but for its text.
        const shaped = shape?.frame(event);
        if (shape !== undefined && shaped !== undefined) {
          const seen = tap.observe(event, shape.data);
          if (dropUsageChunk && seen?.usageOnly === true) continue;
          delivered.events += 1;
          delivered.characters += shape.characters;
          frames += shaped;
          continue;
        }
        const data = parseRelayedData(event.data);
        if (data === brokenFrame) {
          outcome = 'upstream_error';
          frames += errorFrames(
            context,
            new ApiError(
              'upstream_error',
              'The upstream sent an event that is not valid JSON; the answer ends here.',
            ),
            delivered.events,
          );
          yield frames;
          return;
        }
        const seen = tap.observe(event, data);
        if (dropUsageChunk && seen?.usageOnly === true) continue;
        const characters = adapter.countRelayedText(data);
        const carriesModel = adapter.carriesModel(event);
        shape?.learn(event, data, characters, carriesModel);
        delivered.events += 1;
        delivered.characters += characters;
        frames += serializeUpstreamFrame(
          event.event,
          carriesModel ? context.renameModel(event.data) : event.data,
        );
      }
      if (frames !== '') yield frames;
    }
    if (tap.completed()) {
      outcome = 'ok';
    } else if (tap.failed()) {
      // The upstream's own error event was relayed; the client already knows.
      outcome = 'upstream_error';
    } else {
      outcome = 'incomplete';
      yield errorFrames(
        context,
        new ApiError(
          'upstream_error',
          'The upstream stream ended before the response was complete.',
        ),
        delivered.events,
      );
    }
  } catch (error) {
    if (context.clientGone()) return;
    outcome = 'upstream_error';
    yield errorFrames(context, streamFailure(error), delivered.events);
  } finally {
    if (outcome !== 'ok') context.abort();
    const reported = tap.usage();
    await finish(context, {
      usage:
        outcome === 'ok' && reported !== undefined
          ? reported
          : chargeDeliveredUsage(reported, delivered, context),
      deployment: context.deployment,
      outcome,
      status: 200,
    });
  }
}

function countDelivered(part: StreamPart): number {
  switch (part.type) {
    case 'text-delta':
    case 'reasoning-delta':
    case 'tool-input-delta':
      return part.delta.length;
    default:
      return 0;
  }
}

/**
 * The first parts of a stream for a surface whose first event carries the prompt size
 * (message_start): the upstream's own start usage where it gave one, else the best size known now
 * (decisions/0003). Nothing is held back.
 */
function withStartUsage(parts: StreamPart[], promptSize: PromptSizeAtStart): StreamPart[] {
  const first = parts[0];
  if (first?.type !== 'response-start')
    return [{ type: 'response-start', usage: promptSize.usage() }, ...parts];
  if (first.usage !== undefined) return parts;
  return [copyWith(first, { usage: promptSize.usage() }), ...parts.slice(1)];
}

/** Cross dialect: upstream events → canonical parts → client dialect events. */
export async function* translateStream(
  response: UpstreamResponse,
  context: StreamContext,
  provider: ProviderCodec,
  call: GenerationCall,
  promptSize?: PromptSizeAtStart,
): AsyncGenerator<string> {
  const decoder = provider.createStreamDecoder(call);
  const encoder = context.surface.createStreamEncoder(context.encodeContext, context.request);
  // Set until the first parts went out: message_start takes the prompt size from them.
  let sizeAtStart = context.surface.inputUsageAtStart === true ? promptSize : undefined;
  let usage: Usage | undefined;
  let finishReason: FinishReason | undefined;
  let failed = false;
  const delivered: Delivered = { events: 0, characters: 0 };
  let outcome: SessionEnd['outcome'] = 'cancelled';
  const render = (parts: StreamPart[]): string => {
    let frames = '';
    for (const part of parts) {
      delivered.characters += countDelivered(part);
      if (part.type === 'response-start' && part.usage !== undefined) usage = part.usage;
      if (part.type === 'finish') {
        usage = part.usage;
        finishReason = part.finishReason;
      }
      if (part.type === 'error') failed = true;
      for (const event of encoder.encode(part)) {
        frames += serializeSurfaceEvent(event);
        delivered.events += 1;
      }
    }
    return frames;
  };
  // Frames rendered from the current upstream read and not yet yielded: one string per read,
  // however many events it held (one await each); a failure sends them before its error event.
  let frames = '';
  try {
    for await (const events of context.readEventBatches(response.body)) {
      for (const event of events) {
        let parts = decoder.push(event);
        if (sizeAtStart !== undefined && parts.length > 0) {
          parts = withStartUsage(parts, sizeAtStart);
          sizeAtStart = undefined;
        }
        frames += render(parts);
      }
      if (frames !== '') {
        const ready = frames;
        frames = '';
        yield ready;
      }
    }
    const tail = decoder.end();
    frames += render(
      sizeAtStart !== undefined && tail.length > 0 ? withStartUsage(tail, sizeAtStart) : tail,
    );
    for (const event of encoder.end()) frames += serializeSurfaceEvent(event);
    if (frames !== '') yield frames;
    outcome = failed ? 'upstream_error' : finishReason === undefined ? 'incomplete' : 'ok';
  } catch (error) {
    if (context.clientGone()) return;
    outcome = 'upstream_error';
    for (const event of encoder.encode({
      type: 'error',
      error: streamFailure(error).toGenerationError(),
    })) {
      frames += serializeSurfaceEvent(event);
    }
    yield frames;
  } finally {
    if (outcome !== 'ok') context.abort();
    await finish(context, {
      usage:
        outcome === 'ok' && usage !== undefined
          ? usage
          : chargeDeliveredUsage(usage, delivered, context),
      deployment: context.deployment,
      outcome,
      status: 200,
    });
  }
}
