import { ApiError } from '../../canonical/generation-error.ts';
import { buildJudgeToolSchema } from './build-judge-tool-schema.ts';
import { judgeInstructions, renderJudgeQuestion, renderJudgeState } from './build-judge-request.ts';
import type { EvaluationContent, JudgeQuestion } from './evaluation-types.ts';

/** Room kept for one answer: its value, a one-sentence reason and the JSON around them. */
export const outputTokensPerAnswer = 96;
/** Room for the tool call's envelope. */
const outputTokensPerCall = 64;
/** Message framing and tool definition overhead per call. */
const inputTokensPerCall = 256;

/** Three bytes a token errs high: byte-level tokenizers average more bytes a token on text. */
const tokens = (text: string) => Math.ceil(Buffer.byteLength(text, 'utf8') / 3);

export interface JudgeBatch {
  questions: JudgeQuestion[];
  /** Each question as the prompt gives it (renderJudgeQuestion), measured and then sent. */
  renderedQuestions: string[];
  /** The state as the prompt gives it (renderJudgeState), the same for every batch. */
  renderedState: string;
  /** max_tokens of the call: the room its answers need. */
  maxOutputTokens: number;
}

/**
 * Splits the questions into calls none of which exceeds the judge model's context window or its
 * output cap (docs/decisions/0046), keeping the request's order. Every call carries the whole
 * state.
 */
export function splitJudgeBatches(
  state: EvaluationContent,
  questions: readonly JudgeQuestion[],
  limits: { contextWindow: number; maxOutputTokens: number },
): JudgeBatch[] {
  const renderedState = renderJudgeState(state);
  const fixedInput = inputTokensPerCall + tokens(judgeInstructions) + tokens(renderedState);
  const batches: JudgeBatch[] = [];
  let current: JudgeQuestion[] = [];
  let rendered: string[] = [];
  let currentInput = fixedInput;
  const fits = (input: number, count: number) => {
    const output = outputTokensPerCall + count * outputTokensPerAnswer;
    return output <= limits.maxOutputTokens && input + output <= limits.contextWindow;
  };
  const close = () => {
    batches.push({
      questions: current,
      renderedQuestions: rendered,
      renderedState,
      maxOutputTokens: outputTokensPerCall + current.length * outputTokensPerAnswer,
    });
    current = [];
    rendered = [];
    currentInput = fixedInput;
  };
  for (const question of questions) {
    const text = renderJudgeQuestion(question);
    const size = tokens(text) + tokens(JSON.stringify(buildJudgeToolSchema([question])));
    if (!fits(fixedInput + size, 1)) {
      throw new ApiError(
        'invalid_request',
        `The state and the question ${JSON.stringify(question.name)} together do not fit the evaluation model's context window; shorten them.`,
        { details: { param: `questions.${question.name}` } },
      );
    }
    if (current.length > 0 && !fits(currentInput + size, current.length + 1)) close();
    current.push(question);
    rendered.push(text);
    currentInput += size;
  }
  if (current.length > 0) close();
  return batches;
}
