import { randomBytes } from 'node:crypto';
import type { CatalogModel, ModelCatalog } from '../catalog/model-catalog.ts';
import { ApiError } from '../canonical/generation-error.ts';
import { emptyUsage, type Usage } from '../canonical/usage.ts';
import type {
  GenerationInput,
  GenerationReply,
  ResponsesCompactionHook,
} from '../generation/generation-service.ts';
import { mintResponseId } from '../generation/surface-response-id.ts';
import { encodeResponsesUsage } from '../surfaces/responses/encode-responses-usage.ts';
import type { ResponsesCompactionObject } from '../wire/responses/responses-compact-schema.ts';
import type { ResponsesOutputCompaction } from '../wire/responses/responses-object-schema.ts';
import { buildSummaryRequest } from './build-summary-request.ts';
import type { CompactionSeal } from './compaction-seal.ts';
import { compactionItemError, expandCompactionItems } from './expand-compaction-items.ts';
import {
  forwardCompactionUpstream,
  type ForwardDependencies,
} from './forward-compaction-upstream.ts';
import { forwardsCompaction } from './forwards-compaction.ts';
import { readSummaryAnswer } from './read-summary-answer.ts';
import { renderCompactionReply } from './render-compaction-reply.ts';

export interface CompactionDependencies extends ForwardDependencies {
  catalog: ModelCatalog;
  seal: CompactionSeal;
}

type Generate = (input: GenerationInput) => Promise<GenerationReply>;
/** Which of the two client variants asked (docs/clients.md, "Compaction"). */
type Variant = 'trigger' | 'compact';
type Item = Record<string, unknown>;

interface CompactionRun {
  /** The whole compacted history for `/v1/responses/compact`: user messages, then the item. */
  output: unknown[];
  item: ResponsesOutputCompaction;
  usage: Usage;
  headers: Record<string, string>;
}

export interface CompactedAnswer {
  headers: Record<string, string>;
  body: ResponsesCompactionObject;
}

const isItem = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isUserMessage = (item: unknown): item is Item =>
  isItem(item) && (item.type === undefined || item.type === 'message') && item.role === 'user';

/**
 * The fields of a `/v1/responses` request that the compaction endpoint takes (the API reference,
 * and what Codex sends to it); the others shape a normal turn's answer, which a compaction has
 * not got.
 */
const compactFields = [
  'model',
  'instructions',
  'tools',
  'parallel_tool_calls',
  'reasoning',
  'text',
  'prompt_cache_key',
  'prompt_cache_retention',
  'service_tier',
];

function mintCompactionItemId(): string {
  return `cmp_${randomBytes(12).toString('hex')}`;
}

/**
 * Compaction for responses-style clients (docs/clients.md, docs/decisions/0013), both
 * variants: `POST /v1/responses/compact`, and a `/v1/responses` request whose input ends with
 * `compaction_trigger`. A model whose first deployment forwards compaction is compacted by its
 * upstream; any other by the gateway, with a summary turn through the normal pipeline. Either way
 * the client gets a `compaction` item sealed for its account, which a later request expands.
 */
export class CompactionService implements ResponsesCompactionHook {
  readonly #dependencies: CompactionDependencies;

  constructor(dependencies: CompactionDependencies) {
    this.#dependencies = dependencies;
  }

  async prepare(
    input: GenerationInput,
    model: CatalogModel,
    generate: Generate,
  ): Promise<
    { kind: 'continue'; body: Record<string, unknown> } | { kind: 'reply'; reply: GenerationReply }
  > {
    const { body } = input;
    const items = body.input;
    if (!Array.isArray(items)) return { kind: 'continue', body };
    const last = items.length - 1;
    let carriesCompaction = false;
    items.forEach((item, index) => {
      if (!isItem(item)) return;
      if (item.type === 'compaction') carriesCompaction = true;
      if (item.type === 'compaction_trigger' && index !== last) {
        throw compactionItemError(index, 'compaction_trigger must be the last input item.');
      }
    });
    if (isItem(items[last]) && items[last].type === 'compaction_trigger') {
      const history = items.slice(0, last);
      if (history.length === 0 && typeof body.previous_response_id !== 'string') {
        throw compactionItemError(last, 'nothing comes before compaction_trigger to compact.');
      }
      const run = await this.#compact('trigger', model, body, history, input, generate);
      const answer = {
        responseId: mintResponseId('responses'),
        createdAt: Math.floor(this.#dependencies.now() / 1000),
        model: model.id,
        item: run.item,
        usage: run.usage,
        headers: run.headers,
      };
      return { kind: 'reply', reply: renderCompactionReply(answer, body.stream === true) };
    }
    if (!carriesCompaction) return { kind: 'continue', body };
    const expanded = expandCompactionItems(items, this.#expansion(model, input));
    return { kind: 'continue', body: { ...body, input: expanded } };
  }

  /** `POST /v1/responses/compact`: the compacted history as a `response.compaction` object. */
  async compact(input: GenerationInput, generate: Generate): Promise<CompactedAnswer> {
    const { body, principal } = input;
    const model = this.#dependencies.catalog.get(String(body.model));
    if (model === undefined) {
      throw new ApiError(
        'unknown_model',
        `Unknown model "${String(body.model)}". Call GET /v1/models and use an exact model id from it.`,
      );
    }
    const allowed = principal.apiKey.allowedModels;
    if (allowed !== null && !allowed.includes(model.id)) {
      throw new ApiError('model_not_allowed', `This token may not use the model "${model.id}".`);
    }
    const items = this.#compactInput(body);
    const run = await this.#compact('compact', model, body, items, input, generate);
    return {
      headers: run.headers,
      body: {
        id: mintResponseId('responses'),
        object: 'response.compaction',
        created_at: Math.floor(this.#dependencies.now() / 1000),
        output: run.output as ResponsesCompactionObject['output'],
        usage: encodeResponsesUsage(run.usage),
      },
    };
  }

  #compactInput(body: Record<string, unknown>): unknown[] {
    if (typeof body.input === 'string') {
      return [{ type: 'message', role: 'user', content: body.input }];
    }
    if (Array.isArray(body.input)) {
      const trigger = body.input.findIndex(
        (item: unknown) => isItem(item) && item.type === 'compaction_trigger',
      );
      if (trigger !== -1) {
        throw compactionItemError(
          trigger,
          'compaction_trigger belongs in a /v1/responses request; /v1/responses/compact compacts its whole input.',
        );
      }
      return body.input;
    }
    if (typeof body.previous_response_id === 'string' && body.previous_response_id !== '')
      return [];
    throw new ApiError('invalid_request', 'Nothing to compact: send the conversation in input.', {
      details: { param: 'input' },
    });
  }

  #expansion(model: CatalogModel, input: GenerationInput) {
    const { seal } = this.#dependencies;
    const accountId = input.principal.account.id;
    const first = model.deployments[0];
    return {
      open: (token: string) => seal.open(token, accountId),
      compactingProvider:
        first !== undefined && forwardsCompaction(first.provider) ? first.providerId : undefined,
    };
  }

  async #compact(
    variant: Variant,
    model: CatalogModel,
    body: Record<string, unknown>,
    items: unknown[],
    input: GenerationInput,
    generate: Generate,
  ): Promise<CompactionRun> {
    const expansion = this.#expansion(model, input);
    const history = expandCompactionItems(items, expansion);
    if (expansion.compactingProvider !== undefined) {
      return this.#forward(variant, model, body, history, input);
    }
    const summaryBody = buildSummaryRequest(body, history);
    const reply = await generate({
      ...input,
      body: summaryBody,
      bodyBytes: Buffer.byteLength(JSON.stringify(summaryBody)),
    });
    const answer = readSummaryAnswer(reply);
    const item: ResponsesOutputCompaction = {
      id: mintCompactionItemId(),
      type: 'compaction',
      encrypted_content: this.#dependencies.seal.seal(
        { kind: 'summary', summary: answer.summary },
        input.principal.account.id,
      ),
    };
    // As at OpenAI: the user's own messages stay verbatim; the item replaces everything else.
    const kept = items.filter(isUserMessage).map((message) => ({ ...message, type: 'message' }));
    return { output: [...kept, item], item, usage: answer.usage, headers: answer.headers };
  }

  async #forward(
    variant: Variant,
    model: CatalogModel,
    body: Record<string, unknown>,
    history: unknown[],
    input: GenerationInput,
  ): Promise<CompactionRun> {
    const forwardBody: Record<string, unknown> = {};
    // A compact body goes as the client sent it; a triggering turn gives what compaction takes.
    for (const [field, value] of Object.entries(body)) {
      if (variant === 'compact' || compactFields.includes(field)) forwardBody[field] = value;
    }
    forwardBody.input = history;
    const forwarded = await forwardCompactionUpstream(this.#dependencies, {
      model,
      deployments: model.deployments.filter((deployment) =>
        forwardsCompaction(deployment.provider),
      ),
      body: forwardBody,
      principal: input.principal,
      requestId: input.requestId,
      headers: input.headers,
      signal: input.signal,
    });
    const accountId = input.principal.account.id;
    const provider = forwarded.deployment.providerId;
    const output = (Array.isArray(forwarded.object.output) ? forwarded.object.output : []).map(
      (entry: unknown) => {
        if (!isItem(entry) || entry.type !== 'compaction') return entry;
        if (typeof entry.encrypted_content !== 'string') return entry;
        return {
          ...entry,
          id: typeof entry.id === 'string' ? entry.id : mintCompactionItemId(),
          encrypted_content: this.#dependencies.seal.seal(
            { kind: 'upstream', provider, encryptedContent: entry.encrypted_content },
            accountId,
          ),
        };
      },
    );
    const item = output.findLast(
      (entry: unknown): entry is ResponsesOutputCompaction =>
        isItem(entry) && entry.type === 'compaction' && typeof entry.encrypted_content === 'string',
    );
    if (item === undefined) {
      throw new ApiError(
        'upstream_error',
        'The upstream compaction answer had no compaction item.',
      );
    }
    return { output, item, usage: forwarded.usage ?? emptyUsage(), headers: {} };
  }
}
