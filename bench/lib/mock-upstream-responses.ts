/**
 * The bench mock's answers in the OpenAI Responses dialect (`POST /v1/responses`): the finished
 * response object, and the 20-event stream OpenAI sends for a one-message text answer
 * (`event:` lines, `sequence_number` on every event, usage only in `response.completed`).
 */
import { WORDS, pieces } from './mock-upstream-bodies.ts';

const RESPONSE_ID = 'resp_bench00000000000000000000000000000001';
const MESSAGE_ID = 'msg_bench00000000000000000000000000000001';
const MODEL = 'gpt-4.1-mini-2025-04-14';

const textPart = { type: 'output_text', annotations: [], logprobs: [], text: WORDS };
const message = (status: string, content: object[]) => ({
  id: MESSAGE_ID,
  type: 'message',
  status,
  content,
  role: 'assistant',
});

function response(status: string, output: object[], usage: object | null) {
  return {
    id: RESPONSE_ID,
    object: 'response',
    created_at: 1767225600,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: MODEL,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1.0,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_p: 1.0,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: {},
  };
}

const USAGE = {
  input_tokens: 42,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 38,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 80,
};

const COMPLETED = response('completed', [message('completed', [textPart])], USAGE);

export const RESPONSES_JSON = JSON.stringify(COMPLETED);

const item = { item_id: MESSAGE_ID, output_index: 0, content_index: 0 };

/**
 * 20 events: created, in_progress, item and part added, 12 text deltas, text, part and item done,
 * completed.
 */
export const RESPONSES_SSE: string[] = [
  { type: 'response.created', response: response('in_progress', [], null) },
  { type: 'response.in_progress', response: response('in_progress', [], null) },
  { type: 'response.output_item.added', output_index: 0, item: message('in_progress', []) },
  {
    type: 'response.content_part.added',
    ...item,
    part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
  },
  ...pieces(12).map((delta) => ({
    type: 'response.output_text.delta',
    ...item,
    delta,
    logprobs: [],
  })),
  { type: 'response.output_text.done', ...item, text: WORDS, logprobs: [] },
  { type: 'response.content_part.done', ...item, part: textPart },
  { type: 'response.output_item.done', output_index: 0, item: message('completed', [textPart]) },
  { type: 'response.completed', response: COMPLETED },
].map(
  (data, sequence) =>
    `event: ${data.type}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence })}\n\n`,
);
