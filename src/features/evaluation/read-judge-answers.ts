import { parseUntrustedJson } from '../../shared/parse-json.ts';
import { judgeToolName } from './build-judge-tool-schema.ts';
import type { EvaluationAnswer, EvaluationQuestion, JudgeQuestion } from './evaluation-types.ts';
import { copyWith } from '../../shared/copy-with.ts';

export type JudgeReading =
  | { ok: true; answers: Map<string, EvaluationAnswer> }
  /** Why the answer failed the check, for the retry decision and the 502 message. */
  | { ok: false; problem: string };

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The checked value of one answer, or why it is not one (answers are never invented). */
function checkValue(
  question: EvaluationQuestion,
  value: unknown,
): { ok: true; answer: EvaluationAnswer } | { ok: false; problem: string } {
  switch (question.type) {
    case 'choice':
      return typeof value === 'string' && Object.hasOwn(question.criteria, value)
        ? { ok: true, answer: { type: 'choice', value } }
        : { ok: false, problem: `${JSON.stringify(value)} is not one of the criteria names` };
    case 'score':
      return Number.isInteger(value) &&
        (value as number) >= 0 &&
        (value as number) < question.criteria.length
        ? { ok: true, answer: { type: 'score', value: value as number } }
        : {
            ok: false,
            problem: `${JSON.stringify(value)} is not a level index from 0 to ${question.criteria.length - 1}`,
          };
    case 'boolean':
      return typeof value === 'boolean'
        ? { ok: true, answer: { type: 'boolean', value } }
        : { ok: false, problem: `${JSON.stringify(value)} is not true or false` };
    default: {
      const unknownQuestion: never = question;
      throw new Error(`unknown question type ${JSON.stringify(unknownQuestion)}`);
    }
  }
}

/**
 * Reads the judge's forced tool call out of a message-style answer (relayed from an Anthropic
 * upstream or rendered by the gateway from any other) and checks every answer against its
 * question. Anything missing or out of range fails the whole reading: no answer is defaulted.
 */
export function readJudgeAnswers(body: string, batch: readonly JudgeQuestion[]): JudgeReading {
  let parsed: unknown;
  try {
    parsed = parseUntrustedJson(body);
  } catch {
    return { ok: false, problem: 'the answer is not JSON' };
  }
  const content = isJson(parsed) && Array.isArray(parsed.content) ? parsed.content : [];
  const call = content.find(
    (block): block is Json =>
      isJson(block) && block.type === 'tool_use' && block.name === judgeToolName,
  );
  if (call === undefined) return { ok: false, problem: `the model did not call ${judgeToolName}` };
  if (!isJson(call.input)) return { ok: false, problem: 'the tool call has no arguments object' };
  const answers = new Map<string, EvaluationAnswer>();
  for (const { slot, name, question } of batch) {
    const given = Object.hasOwn(call.input, slot) ? call.input[slot] : undefined;
    if (!isJson(given) || !Object.hasOwn(given, 'value')) {
      return { ok: false, problem: `question ${JSON.stringify(name)} was not answered` };
    }
    const checked = checkValue(question, given.value);
    if (!checked.ok) {
      return { ok: false, problem: `question ${JSON.stringify(name)}: ${checked.problem}` };
    }
    if (given.reason !== undefined && typeof given.reason !== 'string') {
      return { ok: false, problem: `question ${JSON.stringify(name)}: the reason is not text` };
    }
    const reason =
      typeof given.reason === 'string' && given.reason.trim() !== '' ? given.reason : undefined;
    answers.set(name, reason === undefined ? checked.answer : copyWith(checked.answer, { reason }));
  }
  return { ok: true, answers };
}
