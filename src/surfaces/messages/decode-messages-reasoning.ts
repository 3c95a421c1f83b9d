import type {
  ReasoningConfig,
  ReasoningEffort,
  ResponseFormat,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import { reportUnknownMessagesKeys } from './decode-messages-cache-control.ts';

const efforts: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

function isEffort(value: unknown): value is ReasoningEffort {
  return efforts.includes(value as ReasoningEffort);
}

/**
 * `display` only shapes how thinking is shown to the client, so the surface encoders carry it
 * (decisions/0011): `summarized` is the readable reasoning the gateway always renders, `omitted`
 * renders thinking blocks without their text (signatures kept, as the Anthropic API does).
 */
function checkDisplay(display: unknown, issues: TranslationIssue[]): void {
  if (display === undefined || display === 'summarized' || display === 'omitted') return;
  issues.push({
    path: 'thinking.display',
    reason: `thinking display "${String(display)}" is not one of summarized, omitted`,
  });
}

/** Claude Code asks for `display: "omitted"` when it does not show thinking (docs/clients.md). */
export function omitsThinkingText(request: Record<string, unknown> | undefined): boolean {
  const thinking = request?.thinking;
  return isJsonObject(thinking) && thinking.display === 'omitted';
}

function decodeThinking(
  thinking: unknown,
  issues: TranslationIssue[],
): ReasoningConfig | undefined {
  if (thinking === undefined) return undefined;
  if (!isJsonObject(thinking)) {
    issues.push({ path: 'thinking', reason: 'thinking must be an object' });
    return undefined;
  }
  switch (thinking.type) {
    case 'enabled':
      reportUnknownMessagesKeys(thinking, ['type', 'budget_tokens', 'display'], 'thinking', issues);
      checkDisplay(thinking.display, issues);
      if (typeof thinking.budget_tokens !== 'number' || !Number.isInteger(thinking.budget_tokens)) {
        issues.push({ path: 'thinking.budget_tokens', reason: 'budget_tokens must be an integer' });
        return undefined;
      }
      return { type: 'budget', budgetTokens: thinking.budget_tokens };
    case 'adaptive':
      // Adaptive thinking lets the model choose how much to think: an effort with no level.
      reportUnknownMessagesKeys(thinking, ['type', 'display'], 'thinking', issues);
      checkDisplay(thinking.display, issues);
      return { type: 'effort' };
    case 'disabled':
      reportUnknownMessagesKeys(thinking, ['type'], 'thinking', issues);
      return { type: 'disabled' };
    default:
      issues.push({
        path: 'thinking.type',
        reason: `thinking type "${String(thinking.type)}" is not one of enabled, adaptive, disabled`,
      });
      return undefined;
  }
}

export interface DecodedMessagesOutputOptions {
  reasoning?: ReasoningConfig;
  responseFormat?: ResponseFormat;
}

function decodeFormat(format: unknown, issues: TranslationIssue[]): ResponseFormat | undefined {
  const path = 'output_config.format';
  if (!isJsonObject(format) || format.type !== 'json_schema') {
    issues.push({
      path: `${path}.type`,
      reason: 'only a "json_schema" output format is supported',
    });
    return undefined;
  }
  reportUnknownMessagesKeys(format, ['type', 'schema'], path, issues);
  if (!isJsonObject(format.schema)) {
    issues.push({ path: `${path}.schema`, reason: 'the output format needs a JSON schema object' });
    return undefined;
  }
  return { type: 'json', schema: format.schema };
}

/** `thinking` and `output_config` together: both say how much the model reasons. */
export function decodeMessagesOutputOptions(
  thinking: unknown,
  outputConfig: unknown,
  issues: TranslationIssue[],
): DecodedMessagesOutputOptions {
  const decoded: DecodedMessagesOutputOptions = {};
  const reasoning = decodeThinking(thinking, issues);
  if (reasoning !== undefined) decoded.reasoning = reasoning;
  if (outputConfig === undefined) return decoded;
  if (!isJsonObject(outputConfig)) {
    issues.push({ path: 'output_config', reason: 'output_config must be an object' });
    return decoded;
  }
  reportUnknownMessagesKeys(outputConfig, ['effort', 'format'], 'output_config', issues);
  if (outputConfig.effort !== undefined) {
    if (!isEffort(outputConfig.effort)) {
      issues.push({
        path: 'output_config.effort',
        reason: `effort "${String(outputConfig.effort)}" is not one of ${efforts.join(', ')}`,
      });
    } else if (reasoning === undefined || reasoning.type === 'effort') {
      decoded.reasoning = { type: 'effort', effort: outputConfig.effort };
    } else {
      issues.push({
        path: 'output_config.effort',
        reason: `an effort level cannot be carried together with thinking "${String((thinking as { type: unknown }).type)}"`,
      });
    }
  }
  if (outputConfig.format !== undefined) {
    const responseFormat = decodeFormat(outputConfig.format, issues);
    if (responseFormat !== undefined) decoded.responseFormat = responseFormat;
  }
  return decoded;
}
