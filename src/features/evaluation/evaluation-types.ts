/** The evaluation request and response (docs/evaluation.md) as the service sees them, validated. */
export type EvaluationContent = string | unknown[] | Record<string, unknown>;

export type EvaluationQuestion =
  | { type: 'choice'; instructions: EvaluationContent; criteria: Record<string, EvaluationContent> }
  | { type: 'score'; instructions: EvaluationContent; criteria: EvaluationContent[] }
  | { type: 'boolean'; instructions: EvaluationContent; criteria?: Record<string, unknown> };

export interface EvaluationRequest {
  state: EvaluationContent;
  questions: Record<string, EvaluationQuestion>;
}

/**
 * An answer checked against its question (docs/evaluation.md): `value` is a criteria name
 * (choice), a zero-based index into the criteria (score) or a boolean.
 */
export type EvaluationAnswer =
  | { type: 'choice'; value: string; reason?: string }
  | { type: 'score'; value: number; reason?: string }
  | { type: 'boolean'; value: boolean; reason?: string };

export interface EvaluationResponse {
  answers: Record<string, EvaluationAnswer>;
  usage: { inputTokens: number; outputTokens: number };
  providerMetadata: {
    /** Calls made to the judge, retries included. */
    calls: number;
    /** The deployment of each call, in order. */
    deployments: string[];
    /** The upstream request id of each call that reported one, in order. */
    upstreamRequestIds: string[];
  };
}

/** A question as the judge sees it: `slot` (`q0`, `q1`, …) is its key in the tool's arguments. */
export interface JudgeQuestion {
  slot: string;
  name: string;
  question: EvaluationQuestion;
}
