import { buildJudgeToolSchema, judgeToolName } from './build-judge-tool-schema.ts';
import type { EvaluationContent, EvaluationQuestion, JudgeQuestion } from './evaluation-types.ts';
import type { JudgeBatch } from './split-judge-batches.ts';

const instructions = [
  'You are an impartial evaluator. Read the state, then answer every question about it.',
  `Answer by calling the tool ${judgeToolName} exactly once, with one entry per question slot.`,
  'A choice answer is exactly one of the listed criterion names. A score answer is the index',
  'of one listed level. A boolean answer is true or false. Add a one-sentence reason.',
].join(' ');

/** Content is a string or free JSON (docs/evaluation.md): a string is given as it is. */
export function renderContent(content: EvaluationContent | Record<string, unknown>): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

function renderCriteria(question: EvaluationQuestion): string {
  switch (question.type) {
    case 'choice':
      return Object.entries(question.criteria)
        .map(([name, content]) => `- ${JSON.stringify(name)}: ${renderContent(content)}`)
        .join('\n');
    case 'score':
      return question.criteria
        .map((content, index) => `- level ${index}: ${renderContent(content)}`)
        .join('\n');
    case 'boolean':
      return question.criteria === undefined ? '' : `Criteria: ${renderContent(question.criteria)}`;
    default: {
      const unknownQuestion: never = question;
      throw new Error(`unknown question type ${JSON.stringify(unknownQuestion)}`);
    }
  }
}

/** One question as the prompt gives it; also what the batch splitter measures. */
export function renderJudgeQuestion({ slot, name, question }: JudgeQuestion): string {
  const criteria = renderCriteria(question);
  return [
    `<question slot="${slot}" name=${JSON.stringify(name)} type="${question.type}">`,
    renderContent(question.instructions),
    ...(criteria === '' ? [] : [criteria]),
    '</question>',
  ].join('\n');
}

export function renderJudgeState(state: EvaluationContent): string {
  return `<state>\n${renderContent(state)}\n</state>`;
}

export const judgeInstructions = instructions;

/**
 * One judge call as a message-style body for the generation pipeline, so any catalog model of
 * any dialect can answer, held, settled and metered like text generation (docs/decisions/0046). The
 * state and the questions are the texts the batch splitter rendered to measure them. The tool call
 * is forced, so the answer is structured and checked (read-judge-answers.ts).
 */
export function buildJudgeRequest(input: {
  model: string;
  batch: Pick<JudgeBatch, 'questions' | 'renderedQuestions' | 'renderedState' | 'maxOutputTokens'>;
}): Record<string, unknown> {
  const { batch } = input;
  const questions = batch.renderedQuestions.join('\n\n');
  return {
    model: input.model,
    max_tokens: batch.maxOutputTokens,
    system: judgeInstructions,
    messages: [
      {
        role: 'user',
        content: `${batch.renderedState}\n\nQuestions:\n\n${questions}`,
      },
    ],
    tools: [
      {
        name: judgeToolName,
        description: 'Submits the answer to every question.',
        input_schema: buildJudgeToolSchema(batch.questions),
      },
    ],
    tool_choice: { type: 'tool', name: judgeToolName },
    stream: false,
  };
}
