import type { Usage } from '../canonical/usage.ts';
import type { GenerationReply } from '../generation/generation-service.ts';
import { serializeSurfaceEvent } from '../generation/serialize-sse.ts';
import { encodeResponsesUsage } from '../surfaces/responses/encode-responses-usage.ts';
import type { SurfaceEvent } from '../surfaces/surface-codec.ts';
import type {
  ResponseObject,
  ResponsesOutputCompaction,
} from '../wire/responses/responses-object-schema.ts';

export interface CompactionAnswer {
  /** `resp_…`, minted by the gateway. */
  responseId: string;
  /** Epoch seconds. */
  createdAt: number;
  /** The public model id the client named. */
  model: string;
  item: ResponsesOutputCompaction;
  usage: Usage;
  /** Headers to pass on besides the content type. */
  headers: Record<string, string>;
}

function responseObject(answer: CompactionAnswer, completed: boolean): ResponseObject {
  return {
    id: answer.responseId,
    object: 'response',
    created_at: answer.createdAt,
    status: completed ? 'completed' : 'in_progress',
    error: null,
    incomplete_details: null,
    model: answer.model,
    output: completed ? [answer.item] : [],
    usage: completed ? encodeResponsesUsage(answer.usage) : null,
  };
}

/**
 * The answer to a request whose input ends with `compaction_trigger` (docs/clients.md: exactly one
 * `compaction` output item), in the responses event sequence when streamed: created, in
 * progress, the item added and done, completed (with the item and the usage), numbered from 0.
 */
export function compactionResponseEvents(answer: CompactionAnswer): SurfaceEvent[] {
  const events: Array<[string, Record<string, unknown>]> = [
    ['response.created', { response: responseObject(answer, false) }],
    ['response.in_progress', { response: responseObject(answer, false) }],
    ['response.output_item.added', { output_index: 0, item: answer.item }],
    ['response.output_item.done', { output_index: 0, item: answer.item }],
    ['response.completed', { response: responseObject(answer, true) }],
  ];
  return events.map(([type, fields], sequence) => ({
    event: type,
    data: { type, sequence_number: sequence, ...fields },
  }));
}

async function* serialized(events: SurfaceEvent[]): AsyncGenerator<string> {
  for (const event of events) yield serializeSurfaceEvent(event);
}

export function renderCompactionReply(answer: CompactionAnswer, stream: boolean): GenerationReply {
  if (!stream) {
    return {
      kind: 'json',
      headers: { ...answer.headers, 'content-type': 'application/json' },
      body: JSON.stringify(responseObject(answer, true)),
    };
  }
  return {
    kind: 'stream',
    headers: {
      ...answer.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    },
    events: serialized(compactionResponseEvents(answer)),
  };
}
