import type { CatalogModel, Deployment } from '../catalog/model-catalog.ts';
import type { CountText } from './count-call-tokens.ts';
import {
  byteBound,
  characterEstimate,
  measurePrompt,
  tokenizerCount,
  type PromptMeasure,
} from './measure-prompt.ts';
import type { PromptTokenizers } from './prompt-tokenizers.ts';

async function loadCount(
  deployment: Deployment,
  tokenizers: PromptTokenizers | undefined,
): Promise<CountText | undefined> {
  if (deployment.tokenizer === undefined || tokenizers === undefined) return undefined;
  const ready = tokenizers.ready(deployment.tokenizer);
  if (ready !== undefined) return ready;
  // The first prompt of a deployment waits for its tables (a tenth of a second, once): a hold
  // sized by the byte bound meanwhile would refuse accounts that can pay.
  return tokenizers.load(deployment.tokenizer).catch(() => undefined);
}

/**
 * The prompt's part of a credit hold (docs/decisions/0100): the count with the model's own
 * tokenizer where the gateway ships it (OpenAI-style deployments, docs/decisions/0031), otherwise
 * an upper bound that grows with what the request holds (measure-prompt.ts). A model with several
 * deployments is held for the largest, since any of them may answer. The counts of a prompt's
 * texts are remembered (prompt-tokenizers.ts), so a conversation's resent turns cost a lookup.
 */
export function boundPromptTokens(
  body: Record<string, unknown>,
  model: CatalogModel,
  tokenizers: PromptTokenizers | undefined,
): number | Promise<number> {
  const measures = new Set<PromptMeasure>();
  for (const deployment of model.deployments) {
    if (deployment.tokenizer === undefined || tokenizers === undefined) {
      measures.add(byteBound);
      continue;
    }
    const ready = tokenizers.ready(deployment.tokenizer);
    // A tokenizer still to load: the bound waits for it (loadCount); every later call is counted
    // here without a turn of the event loop.
    if (ready === undefined) return boundAfterLoading(body, model, tokenizers);
    measures.add(tokenizerCount(ready));
  }
  return largestMeasure(body, model, measures);
}

async function boundAfterLoading(
  body: Record<string, unknown>,
  model: CatalogModel,
  tokenizers: PromptTokenizers,
): Promise<number> {
  const measures = new Set<PromptMeasure>();
  for (const deployment of model.deployments) {
    const count = await loadCount(deployment, tokenizers);
    measures.add(count === undefined ? byteBound : tokenizerCount(count));
  }
  return largestMeasure(body, model, measures);
}

function largestMeasure(
  body: Record<string, unknown>,
  model: CatalogModel,
  measures: Set<PromptMeasure>,
): number {
  if (measures.has(byteBound)) return measurePrompt(body, byteBound, model.contextWindow);
  let largest = 0;
  for (const measure of measures) {
    largest = Math.max(largest, measurePrompt(body, measure, model.contextWindow));
  }
  return largest;
}

/**
 * The prompt of a call the upstream never reported it for (a stream cut short, an answer without
 * usage), as the answering deployment's tokenizer counts it, or at about four characters a token
 * without one (docs/decisions/0016): a count, never the hold's bound.
 */
export function countPromptLocally(
  body: Record<string, unknown>,
  deployment: Deployment,
  tokenizers: PromptTokenizers | undefined,
  contextWindow: number,
): number {
  const count =
    deployment.tokenizer === undefined ? undefined : tokenizers?.ready(deployment.tokenizer);
  return measurePrompt(
    body,
    count === undefined ? characterEstimate : tokenizerCount(count),
    contextWindow,
  );
}
