import type { LightMyRequestResponse } from 'fastify';

import type {
  FakeReply,
  FakeUpstream,
  RecordedRequest,
} from '../fake-upstream/fake-upstream-server.ts';
import { startUpstreamTestBed, testModel, type TestGateway } from '../support/test-gateway.ts';

export const evaluationModelId = 'switchyard-evaluator-1';
export const evaluationUrl = '/v4/ai/evaluation-model';

export interface EvaluationBed {
  upstream: FakeUpstream;
  gateway: TestGateway;
  /** The clock the gateway reads; tests move it. */
  clock: { now: number };
  close(): Promise<void>;
}

/** A gateway whose judge is a model of the given dialect on the fake upstream. */
export async function startEvaluationBed(
  options: {
    kind?: 'anthropic' | 'openai-chat' | 'openai-responses';
    model?: Record<string, unknown>;
    /** Further configuration (billing, limits, …). */
    config?: Record<string, unknown>;
  } = {},
): Promise<EvaluationBed> {
  const clock = { now: Date.now() };
  const bed = await startUpstreamTestBed({
    providers: { judge: { kind: options.kind ?? 'anthropic' } },
    models: [testModel('judge-model', 'judge', options.model ?? {})],
    config: {
      ...options.config,
      evaluation: { modelId: evaluationModelId, judgeModel: 'judge-model' },
    },
    now: () => clock.now,
  });
  return { upstream: bed.fake, gateway: bed.gateway, clock, close: bed.close };
}

export function evaluationHeaders(
  token: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    authorization: `Bearer ${token}`,
    'idempotency-key': `key-${Math.random().toString(36).slice(2)}`,
    'ai-model-id': evaluationModelId,
    'ai-evaluation-model-specification-version': '4',
    ...overrides,
  };
  return Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

export function postEvaluation(
  gateway: TestGateway,
  headers: Record<string, string>,
  body: unknown,
): Promise<LightMyRequestResponse> {
  return gateway.app.inject({
    method: 'POST',
    url: evaluationUrl,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The tool's argument schema in whichever dialect the judge call arrived. */
export function judgeToolSchema(request: RecordedRequest): {
  properties: Record<string, { properties: { value: Record<string, unknown> } }>;
  required: string[];
} {
  const body = request.body as { tools: Array<Record<string, unknown>> };
  const tool = body.tools[0] as Record<string, unknown>;
  const schema =
    tool.input_schema ?? tool.parameters ?? (tool.function as Record<string, unknown>).parameters;
  return schema as ReturnType<typeof judgeToolSchema>;
}

/** A judge reply calling the tool with these arguments. */
export function judgeReply(args: unknown, usage = { input: 100, output: 20 }): FakeReply {
  return {
    output: [{ toolCall: { name: 'submit_answers', arguments: JSON.stringify(args) } }],
    usage,
  };
}

/** A judge that answers every slot with the first allowed value, reading the call's schema. */
export function answerEverySlot(request: RecordedRequest): FakeReply {
  const schema = judgeToolSchema(request);
  const args: Record<string, unknown> = {};
  for (const [slot, answer] of Object.entries(schema.properties)) {
    const value = answer.properties.value;
    args[slot] = {
      value: Array.isArray(value.enum) ? value.enum[0] : value.type === 'integer' ? 0 : true,
    };
  }
  return judgeReply(args);
}

export const booleanQuestion = { type: 'boolean', instructions: 'Is the answer polite?' };

export function questions(count: number): Record<string, unknown> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`question ${index}`, booleanQuestion]),
  );
}
