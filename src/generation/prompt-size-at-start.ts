import type { Deployment } from '../catalog/model-catalog.ts';
import type { GenerationCall } from '../canonical/generation-call.ts';
import { usageFromParts, type Usage } from '../canonical/usage.ts';
import type { AbortHandle } from '../shared/abort-handle.ts';
import { countCallTokens, estimateTextTokens } from './count-call-tokens.ts';
import type { PromptCounter } from './generation-service.ts';
import type { PromptTokenizers } from './prompt-tokenizers.ts';

/**
 * The prompt size a message-style stream announces in `message_start` when its upstream reports
 * usage only at the end (decisions/0003). Nothing waits for it: the stream starts with the best
 * number known when the upstream's first event arrives — the upstream's own count if it has
 * already answered, otherwise the local count — and `message_delta` then carries the upstream's
 * exact figures.
 */
export class PromptSizeAtStart {
  #counted: number | undefined;
  #local: number | undefined;
  readonly #countLocally: () => number;
  readonly #scheduled: NodeJS.Immediate;

  /**
   * `counted` is the upstream's count, asked beside the call (never rejects). `countLocally` runs
   * once, after the upstream request went out, so its work overlaps the wait for the first byte.
   */
  constructor(counted: Promise<number | undefined> | undefined, countLocally: () => number) {
    this.#countLocally = countLocally;
    void counted?.then((tokens) => {
      this.#counted = tokens;
    });
    this.#scheduled = setImmediate(() => this.#localCount());
  }

  /** The prompt's usage as the first event reports it: input only, no output yet. */
  usage(): Usage {
    return usageFromParts({ noCache: this.#counted ?? this.#localCount(), output: 0 });
  }

  /** The call this size was for was not answered: no count is needed. */
  discard(): void {
    clearImmediate(this.#scheduled);
  }

  #localCount(): number {
    this.#local ??= this.#countLocally();
    return this.#local;
  }
}

/**
 * Starts sizing the prompt of a translated call towards an OpenAI-style deployment: the upstream's
 * count beside the call, and the local count with the deployment's tokenizer (an estimate of four
 * characters a token without one). Call it just before the upstream request is sent.
 */
export function sizePromptAtStart(
  deployment: Deployment,
  call: GenerationCall,
  options: {
    counter: PromptCounter | undefined;
    tokenizers: PromptTokenizers | undefined;
    clientHeaders: Record<string, string | string[] | undefined>;
    signal: AbortHandle;
  },
): PromptSizeAtStart {
  const countText =
    (deployment.tokenizer && options.tokenizers?.ready(deployment.tokenizer)) || estimateTextTokens;
  return new PromptSizeAtStart(
    options.counter?.countPrompt(deployment, call, options.clientHeaders, options.signal),
    () => countCallTokens(call, countText),
  );
}
