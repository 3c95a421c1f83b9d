import type { Authenticator } from '../../auth/authenticator.ts';
import type { CreditLedger } from '../../billing/credit-ledger.ts';
import type { ModelCatalog } from '../../catalog/model-catalog.ts';
import type { Config } from '../../config/config-schema.ts';
import type { GenerationService } from '../../generation/generation-service.ts';
import type {
  IdempotencyService,
  IdempotentOperation,
} from '../../idempotency/idempotency-service.ts';
import type { SurfaceCodec } from '../../surfaces/surface-codec.ts';
import type { GatewayFeature } from '../gateway-feature.ts';
import { evaluationRoutes } from './evaluation-routes.ts';
import { EvaluationService } from './evaluation-service.ts';

/**
 * Evaluation's idempotency: a result is replayed for 15 minutes (docs/evaluation.md). A claim is
 * held for 10 minutes: longer than the largest evaluation runs (a few judge calls, each bounded by
 * the upstream timeouts), after which an unfinished claim counts as abandoned.
 */
export const evaluationOperation: IdempotentOperation = {
  name: 'evaluation',
  windowMs: 15 * 60_000,
  claimMs: 10 * 60_000,
};

export function composeEvaluation(dependencies: {
  config: Config['evaluation'];
  catalog: ModelCatalog;
  authenticator: Authenticator;
  generation: GenerationService;
  messagesSurface: SurfaceCodec;
  ledger: CreditLedger;
  idempotency: IdempotencyService;
  now(): number;
}): GatewayFeature {
  const { config } = dependencies;
  // Without configuration there is no judge, so the route does not exist (docs/evaluation.md).
  if (config === undefined) return { routes: [] };
  const evaluation = new EvaluationService({
    generate: (input) => dependencies.generation.generate(input),
    catalog: dependencies.catalog,
    surface: dependencies.messagesSurface,
    judgeModel: config.judgeModel,
    ledger: dependencies.ledger,
    now: dependencies.now,
  });
  return {
    routes: [
      (app) =>
        evaluationRoutes(app, {
          authenticator: dependencies.authenticator,
          evaluation,
          idempotency: dependencies.idempotency,
          modelId: config.modelId,
          operation: evaluationOperation,
        }),
    ],
  };
}
