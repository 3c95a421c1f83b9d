import type { GenerationCall } from '../canonical/generation-call.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { FinishReason } from '../canonical/finish-reason.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import { usageFromParts, type Usage } from '../canonical/usage.ts';
import type { ProviderCodec } from '../providers/provider-codec.ts';
import { readUpstreamEventBatches } from '../providers/shared/read-upstream-events.ts';
import { isTimeout, type UpstreamResponse } from '../providers/shared/upstream-pool.ts';
import type { SurfaceCodec, SurfaceEncodeContext } from '../surfaces/surface-codec.ts';
import type { BillingSession, SessionEnd } from './billing-session.ts';
import type { PassthroughAdapter } from './passthrough-adapter.ts';
import type { PromptSizeAtStart } from './prompt-size-at-start.ts';
import { serializeSurfaceEvent, serializeUpstreamEvent } from './serialize-sse.ts';

export interface StreamContext {
  surface: SurfaceCodec;
  encodeContext: SurfaceEncodeContext;
  /** The client's validated body, for stream options that live in it. */
  request: Record<string, unknown>;
  /** Puts the catalog model id into a relayed JSON text (rename-relayed-model.ts). */
  renameModel(json: string): string;
  session: BillingSession;
  deployment: string;
  abort(): void;
  /** True once the client went away: a broken upstream read is then our own abort. */
  clientGone(): boolean;
  cleanup(): void;
}

/**
 * A stream cut short is billed for what was delivered (issue 3): the upstream's own numbers
 * where it gave them, else the prompt as reported at the start plus the delivered output at
 * about four characters a token.
 */
function deliveredUsage(
  reported: Usage | undefined,
  deliveredCharacters: number,
): Usage | undefined {
  const estimatedOutput = Math.ceil(deliveredCharacters / 4);
  if (reported === undefined) {
    return estimatedOutput === 0
      ? undefined
      : usageFromParts({ noCache: 0, output: estimatedOutput });
  }
  if (reported.outputTokens.total >= estimatedOutput) return reported;
  return { ...reported, outputTokens: { ...reported.outputTokens, total: estimatedOutput } };
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

/** Same dialect: relay each upstream event as it is, reading usage on the way. */
export async function* relayStream(
  response: UpstreamResponse,
  context: StreamContext,
  adapter: PassthroughAdapter,
  dropUsageChunk: boolean,
): AsyncGenerator<string> {
  const tap = adapter.createUsageTap();
  let outcome: SessionEnd['outcome'] = 'cancelled';
  try {
    // One string per upstream read, however many events it held: one await each.
    for await (const events of readUpstreamEventBatches(response.body)) {
      let frames = '';
      for (const event of events) {
        const seen = tap.observe(event);
        if (dropUsageChunk && seen?.usageOnly === true) continue;
        frames += serializeUpstreamEvent(
          adapter.carriesModel(event) ? { ...event, data: context.renameModel(event.data) } : event,
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
      const encoder = context.surface.createStreamEncoder(context.encodeContext, context.request);
      const error = new ApiError(
        'upstream_error',
        'The upstream stream ended before the response was complete.',
      );
      for (const event of encoder.encode({ type: 'error', error: error.toGenerationError() }))
        yield serializeSurfaceEvent(event);
    }
  } catch (error) {
    if (context.clientGone()) return;
    outcome = 'upstream_error';
    const encoder = context.surface.createStreamEncoder(context.encodeContext, context.request);
    for (const event of encoder.encode({
      type: 'error',
      error: streamFailure(error).toGenerationError(),
    })) {
      yield serializeSurfaceEvent(event);
    }
  } finally {
    if (outcome !== 'ok') context.abort();
    await finish(context, {
      usage: outcome === 'ok' ? tap.usage() : deliveredUsage(tap.usage(), 0),
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
  return [{ ...first, usage: promptSize.usage() }, ...parts.slice(1)];
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
  let delivered = 0;
  let outcome: SessionEnd['outcome'] = 'cancelled';
  const render = (parts: StreamPart[]): string => {
    let frames = '';
    for (const part of parts) {
      delivered += countDelivered(part);
      if (part.type === 'response-start' && part.usage !== undefined) usage = part.usage;
      if (part.type === 'finish') {
        usage = part.usage;
        finishReason = part.finishReason;
      }
      if (part.type === 'error') failed = true;
      for (const event of encoder.encode(part)) frames += serializeSurfaceEvent(event);
    }
    return frames;
  };
  // Frames rendered from the current upstream read and not yet yielded: one string per read,
  // however many events it held (one await each); a failure sends them before its error event.
  let frames = '';
  try {
    for await (const events of readUpstreamEventBatches(response.body)) {
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
      usage: outcome === 'ok' ? usage : deliveredUsage(usage, delivered),
      deployment: context.deployment,
      outcome,
      status: 200,
    });
  }
}
