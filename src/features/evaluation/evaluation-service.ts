import type { Principal } from '../../auth/authenticator.ts';
import type { CreditLedger } from '../../billing/credit-ledger.ts';
import { ledgerEntryId } from '../../billing/ledger-entry-id.ts';
import type { ModelCatalog } from '../../catalog/model-catalog.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type {
  GenerationInput,
  GenerationReply,
  GenerationTrace,
} from '../../generation/generation-service.ts';
import { AbortHandle } from '../../shared/abort-handle.ts';
import type { SurfaceCodec } from '../../surfaces/surface-codec.ts';
import { buildJudgeRequest } from './build-judge-request.ts';
import type {
  EvaluationAnswer,
  EvaluationRequest,
  EvaluationResponse,
  JudgeQuestion,
} from './evaluation-types.ts';
import { readJudgeAnswers } from './read-judge-answers.ts';
import { splitJudgeBatches, type JudgeBatch } from './split-judge-batches.ts';

export interface EvaluationDependencies {
  /** The text-generation pipeline (GenerationService.generate). */
  generate(input: GenerationInput): Promise<GenerationReply>;
  catalog: ModelCatalog;
  /** The message-style surface: the judge's calls are written in its dialect. */
  surface: SurfaceCodec;
  /** The catalog model that answers (configuration `evaluation.judgeModel`). */
  judgeModel: string;
  ledger: CreditLedger;
  now(): number;
}

export interface EvaluationInput {
  request: EvaluationRequest;
  principal: Principal;
  requestId: string;
  /**
   * Told, when the evaluation succeeded, what its calls were charged together (micro-credits) and
   * the account's available balance after the last one (credits, as its answer's header said);
   * not told when a settlement waits for the store, as the charge is not known then.
   */
  onCharged?(charge: { costMicroCredits: number; balance: string | undefined }): void;
}

/** What the calls of one evaluation used and cost so far. */
interface Tally {
  inputTokens: number;
  outputTokens: number;
  cost: number;
  deployments: string[];
  upstreamRequestIds: string[];
  /** Every call's charge was settled (none waits in the outbox). */
  chargesKnown: boolean;
  /** The balance the last call's answer told (x-switchyard-balance). */
  balance: string | undefined;
}

/**
 * Typed evaluation (docs/evaluation.md): the questions are split into calls
 * that fit the judge model, each call forces a tool whose schema is built from its questions,
 * every answer is checked, and an answer that fails the check is asked for once more. Each call
 * goes through the generation pipeline, so it is limited, held and settled at the model's prices.
 */
export class EvaluationService {
  readonly #dependencies: EvaluationDependencies;

  constructor(dependencies: EvaluationDependencies) {
    this.#dependencies = dependencies;
  }

  async evaluate(input: EvaluationInput): Promise<EvaluationResponse> {
    const { catalog, judgeModel } = this.#dependencies;
    const model = catalog.get(judgeModel);
    if (model === undefined) {
      throw new ApiError('internal', 'The evaluation model is not in the catalog.');
    }
    const questions: JudgeQuestion[] = Object.entries(input.request.questions).map(
      ([name, question], index) => ({ slot: `q${index}`, name, question }),
    );
    const batches = splitJudgeBatches(input.request.state, questions, model);
    const tally: Tally = {
      inputTokens: 0,
      outputTokens: 0,
      cost: 0,
      deployments: [],
      upstreamRequestIds: [],
      chargesKnown: true,
      balance: undefined,
    };
    const found = new Map<string, EvaluationAnswer>();
    try {
      for (const batch of batches) {
        for (const [name, answer] of await this.#judge(input, batch, tally))
          found.set(name, answer);
      }
    } catch (error) {
      await this.#refund(input, tally.cost);
      throw error;
    }
    if (tally.chargesKnown)
      input.onCharged?.({ costMicroCredits: tally.cost, balance: tally.balance });
    const answers: Record<string, EvaluationAnswer> = {};
    for (const { name } of questions) answers[name] = found.get(name) as EvaluationAnswer;
    return {
      answers,
      usage: { inputTokens: tally.inputTokens, outputTokens: tally.outputTokens },
      providerMetadata: {
        calls: tally.deployments.length,
        deployments: tally.deployments,
        upstreamRequestIds: tally.upstreamRequestIds,
      },
    };
  }

  /** One batch: a call, and one more when the answer fails the check (docs/decisions/0046). */
  async #judge(
    input: EvaluationInput,
    batch: JudgeBatch,
    tally: Tally,
  ): Promise<Map<string, EvaluationAnswer>> {
    const { judgeModel, surface } = this.#dependencies;
    const body = buildJudgeRequest({ model: judgeModel, batch });
    const text = JSON.stringify(body);
    let problem = '';
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const reply = await this.#dependencies.generate({
        surface,
        body,
        bodyBytes: Buffer.byteLength(text, 'utf8'),
        principal: input.principal,
        headers: {},
        requestId: input.requestId,
        // An idempotent request runs to its end even when its client leaves, so the retry
        // replays the stored answer instead of paying again.
        signal: new AbortHandle(),
        meteredAs: 'evaluation',
        // A judge's forced tool call cut at a lowered limit would not parse: 402 instead.
        keepOutputLimit: true,
      });
      if (reply.kind !== 'json') throw new ApiError('internal', 'The judge call was streamed.');
      if (reply.trace !== undefined) count(tally, reply.trace);
      // The pipeline tells a JSON answer's charge only once the ledger has it.
      if (reply.headers['x-switchyard-cost'] === undefined) tally.chargesKnown = false;
      tally.balance = reply.headers['x-switchyard-balance'];
      const reading = readJudgeAnswers(reply.body, batch.questions);
      if (reading.ok) return reading.answers;
      problem = reading.problem;
    }
    throw new ApiError(
      'upstream_error',
      `The evaluation model gave an answer that does not fit the questions twice (${problem}); no answer was invented. Retry later.`,
    );
  }

  /**
   * A failed evaluation costs nothing (docs/architecture.md): what its calls were charged goes
   * back.
   */
  async #refund(input: EvaluationInput, cost: number): Promise<void> {
    if (cost === 0) return;
    const createdAt = this.#dependencies.now();
    await this.#dependencies.ledger.appendEntry({
      id: ledgerEntryId(createdAt),
      accountId: input.principal.account.id,
      amount: cost,
      kind: 'adjustment',
      reason: `evaluation ${this.#dependencies.judgeModel} failed: refund`,
      requestId: input.requestId,
      createdAt,
    });
  }
}

function count(tally: Tally, trace: GenerationTrace): void {
  tally.inputTokens += trace.usage?.inputTokens.total ?? 0;
  tally.outputTokens += trace.usage?.outputTokens.total ?? 0;
  tally.cost += trace.cost;
  tally.deployments.push(trace.deployment);
  if (trace.upstreamRequestId !== undefined) tally.upstreamRequestIds.push(trace.upstreamRequestId);
}
