import type { EvaluationQuestion, JudgeQuestion } from './evaluation-types.ts';

export const judgeToolName = 'submit_answers';

/**
 * Slots (`q0`, `q1`, …), not the client's question names, are the property names: providers
 * restrict tool property names (letters, digits, `_`, `-`) and a question name is any string.
 */
function answerValueSchema(question: EvaluationQuestion): Record<string, unknown> {
  switch (question.type) {
    case 'choice':
      return { type: 'string', enum: Object.keys(question.criteria) };
    case 'score':
      return { type: 'integer', minimum: 0, maximum: question.criteria.length - 1 };
    case 'boolean':
      return { type: 'boolean' };
    default: {
      const unknownQuestion: never = question;
      throw new Error(`unknown question type ${JSON.stringify(unknownQuestion)}`);
    }
  }
}

/** The JSON Schema of the forced tool call's arguments: one required answer per question. */
export function buildJudgeToolSchema(batch: readonly JudgeQuestion[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const { slot, name, question } of batch) {
    properties[slot] = {
      type: 'object',
      description: `Answer to question ${slot} (${JSON.stringify(name)}, ${question.type}).`,
      properties: {
        value: answerValueSchema(question),
        reason: { type: 'string', description: 'One short sentence: why.' },
      },
      required: ['value'],
      additionalProperties: false,
    };
  }
  return {
    type: 'object',
    properties,
    required: batch.map(({ slot }) => slot),
    additionalProperties: false,
  };
}
