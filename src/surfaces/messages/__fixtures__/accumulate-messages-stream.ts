import type { SurfaceEvent } from '../../surface-codec.ts';

type Block = Record<string, unknown> & { type: string };

export interface AccumulatedMessage {
  message: Record<string, unknown> & { content: Block[]; usage: Record<string, unknown> };
  stopped: boolean;
}

/**
 * Folds message-style events into the final message the way the official SDK's message stream
 * does, but strictly: it throws on every ordering the SDK's accumulator would mis-handle
 * (events before message_start, block indexes out of order, overlapping blocks, deltas of the
 * wrong kind, a signature not directly before its block stops, anything after message_stop).
 */
export function accumulateMessagesStream(events: SurfaceEvent[]): AccumulatedMessage {
  let message: AccumulatedMessage['message'] | undefined;
  let open: { index: number; block: Block; json: string } | undefined;
  let lastDelta: string | undefined;
  let stopped = false;
  for (const { event, data } of events) {
    const body = data as Record<string, unknown> & { type: string; index?: number };
    if (event !== body.type)
      throw new Error(`event name ${event} differs from data type ${body.type}`);
    if (stopped) throw new Error(`${body.type} after message_stop`);
    if (message === undefined) {
      if (body.type !== 'message_start') throw new Error(`${body.type} before message_start`);
      message = structuredClone(body.message) as AccumulatedMessage['message'];
      continue;
    }
    switch (body.type) {
      case 'content_block_start':
        if (open) throw new Error(`block ${body.index} starts while ${open.index} is open`);
        if (body.index !== message.content.length)
          throw new Error(`index ${body.index} out of order`);
        open = { index: body.index, block: structuredClone(body.content_block) as Block, json: '' };
        message.content.push(open.block);
        lastDelta = undefined;
        break;
      case 'content_block_delta': {
        if (!open || open.index !== body.index)
          throw new Error(`delta for block ${body.index} that is not open`);
        if (lastDelta === 'signature_delta') throw new Error('delta after signature_delta');
        const delta = body.delta as Record<string, string> & { type: string };
        const expected: Record<string, string> = {
          text_delta: 'text',
          input_json_delta: 'tool_use',
          thinking_delta: 'thinking',
          signature_delta: 'thinking',
        };
        if (expected[delta.type] !== open.block.type)
          throw new Error(`${delta.type} in a ${open.block.type} block`);
        if (delta.type === 'text_delta')
          open.block.text = `${String(open.block.text)}${delta.text}`;
        if (delta.type === 'thinking_delta')
          open.block.thinking = `${String(open.block.thinking)}${delta.thinking}`;
        if (delta.type === 'signature_delta') open.block.signature = delta.signature;
        if (delta.type === 'input_json_delta') open.json += delta.partial_json;
        lastDelta = delta.type;
        break;
      }
      case 'content_block_stop':
        if (!open || open.index !== body.index)
          throw new Error(`stop for block ${body.index} that is not open`);
        if (open.block.type === 'tool_use' && open.json !== '')
          open.block.input = JSON.parse(open.json);
        open = undefined;
        break;
      case 'message_delta': {
        if (open) throw new Error('message_delta while a block is open');
        const delta = body.delta as Record<string, unknown>;
        message.stop_reason = delta.stop_reason;
        message.stop_sequence = delta.stop_sequence;
        Object.assign(message.usage, body.usage);
        break;
      }
      case 'message_stop':
        if (open) throw new Error('message_stop while a block is open');
        stopped = true;
        break;
      case 'ping':
        break;
      default:
        throw new Error(`unexpected event ${body.type}`);
    }
  }
  if (message === undefined) throw new Error('no message_start');
  return { message, stopped };
}
