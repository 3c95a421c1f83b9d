import type { Principal } from '../auth/authenticator.ts';
import { emptyUsage } from '../canonical/usage.ts';
import type { GenerationInput, GenerationTurnHook } from '../generation/generation-service.ts';
import { mintResponseId } from '../generation/surface-response-id.ts';
import { createResponsesStreamEncoder } from '../surfaces/responses/create-responses-stream-encoder.ts';
import { expandItemReferences, hasItemReferences } from './expand-item-references.ts';
import { historyOf, inputItemsOf } from './expand-responses-input.ts';
import { lastReferencedId, ownItemsStart } from './match-stored-history.ts';
import type { FinishedResponse } from './read-finished-response.ts';
import { recordFinishedResponse } from './record-finished-response.ts';
import type { ResponseStore, ResponsesItem, StoredResponse } from './response-store.ts';
import type { ResponsesConnectionHistory } from './responses-connection-history.ts';
import {
  conversationNotAvailable,
  previousResponseHistoryBroken,
  previousResponseNotFound,
} from './responses-state-errors.ts';
import { copyWith } from '../shared/copy-with.ts';

export interface ResponsesStateDependencies {
  store: ResponseStore;
  /** How long a stored response can be continued (`responses.retentionDays`). */
  retentionMs: number;
  /** What an absent `store` means (`responses.storeByDefault`; the dialect's default is true). */
  storeByDefault: boolean;
  now(): number;
  /** A finished response could not be stored; the client has its answer already. */
  onSaveFailure(error: unknown, responseId: string): void;
  /**
   * How many stored responses one chain may hold (default 1000): a kept turn whose previous
   * response ends a chain this long starts a new one with its whole history, so reading a
   * history back never walks further (docs/decisions/0037).
   */
  maxChainLength?: number;
}

/** The stored response a turn continues and the length of the chain it ends. */
interface ChainLink {
  previousResponseId: string;
  chainLength: number;
}

/** A responses body with its previous response expanded into `input`. */
export interface ExpandedResponsesBody {
  body: Record<string, unknown>;
  /** The items the turn is generated from: the history, then its own input. */
  input: ResponsesItem[];
  /** JSON size of the history added, for the credit hold's estimate. */
  historyBytes: number;
  /** The turn's own input items, item references expanded, without the history before them. */
  ownInput: ResponsesItem[];
  /** Set when the history is a stored chain that a kept turn can link to instead of copying. */
  link?: ChainLink;
}

/** The stored response owning an input's last item reference, with its whole chain. */
interface ReferencedChain {
  responseId: string;
  /** Oldest first, starting at the chain's first response. */
  chain: StoredResponse[];
}

interface Turn {
  body: Record<string, unknown>;
  accountId: string;
  keep: boolean;
  createdAt: number;
  input: ResponsesItem[];
  ownInput: ResponsesItem[];
  link: ChainLink | undefined;
  history: ResponsesConnectionHistory | undefined;
}

const defaultMaxChainLength = 1000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function previousResponseId(body: Record<string, unknown>): string | undefined {
  const id = body.previous_response_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Reasoning that a later turn replays must come with its encrypted content (store is false). */
function withEncryptedReasoning(body: Record<string, unknown>): Record<string, unknown> {
  const reasoning = body.reasoning;
  if (!isRecord(reasoning) || reasoning.effort === 'none') return body;
  const include = Array.isArray(body.include) ? (body.include as unknown[]) : [];
  if (include.includes('reasoning.encrypted_content')) return body;
  return copyWith(body, { include: [...include, 'reasoning.encrypted_content'] });
}

/**
 * Responses state kept by the gateway (docs/decisions/0012): `store` keeps a
 * finished turn for `retentionMs`, `previous_response_id` expands a kept turn into `input` before
 * any translation, and a WebSocket connection also remembers its own turns. The upstream never
 * keeps state: it is always sent `store: false` and never a response id.
 */
export class ResponsesState {
  readonly #dependencies: ResponsesStateDependencies;
  /** The HTTP routes' hook: state lives in the store only. */
  readonly turnHook: GenerationTurnHook;

  constructor(dependencies: ResponsesStateDependencies) {
    this.#dependencies = dependencies;
    this.turnHook = { prepare: (input) => this.#prepare(input, undefined) };
  }

  /** The hook of one WebSocket connection: its own turns first, then the store. */
  connectionTurnHook(history: ResponsesConnectionHistory): GenerationTurnHook {
    return { prepare: (input) => this.#prepare(input, history) };
  }

  /**
   * The body with its `previous_response_id` expanded and removed, `store: false`. With
   * `remembers`, reasoning is asked for with its encrypted content so it can be replayed.
   */
  async expand(
    body: Record<string, unknown>,
    accountId: string,
    options: { history?: ResponsesConnectionHistory; remembers?: boolean } = {},
  ): Promise<ExpandedResponsesBody> {
    if (body.conversation !== undefined && body.conversation !== null) {
      throw conversationNotAvailable();
    }
    const { previous_response_id: _previous, ...rest } = body;
    const expanded = copyWith(rest, { store: false });
    const clientInput = inputItemsOf(body.input);
    const previousId = previousResponseId(body);
    // Over a WebSocket the connection's own rules stay: only previous_response_id links.
    const referenced =
      previousId === undefined && options.history === undefined
        ? await this.#referencedChain(clientInput, accountId)
        : undefined;
    const ownInput = await expandItemReferences(clientInput, (ids) =>
      this.#findOutputItems(ids, accountId, options.history, referenced?.chain),
    );
    const prepared = options.remembers === true ? withEncryptedReasoning(expanded) : expanded;
    if (previousId === undefined) {
      if (ownInput === clientInput) {
        return { body: prepared, input: ownInput, historyBytes: 0, ownInput };
      }
      const start =
        referenced === undefined
          ? undefined
          : ownItemsStart(ownInput, referenced.chain.flatMap(historyOf));
      return {
        body: { ...prepared, input: ownInput },
        input: ownInput,
        ownInput: start === undefined ? ownInput : ownInput.slice(start),
        ...(referenced !== undefined && start !== undefined
          ? {
              link: {
                previousResponseId: referenced.responseId,
                chainLength: referenced.chain.length,
              },
            }
          : {}),
        historyBytes: Math.max(
          0,
          JSON.stringify(ownInput).length - JSON.stringify(body.input).length,
        ),
      };
    }

    const { history, link } = await this.#historyBefore(previousId, accountId, options.history);
    const input = [...history, ...ownInput];
    return {
      body: { ...prepared, input },
      input,
      ownInput,
      ...(link !== undefined ? { link } : {}),
      historyBytes: Math.max(0, JSON.stringify(input).length - JSON.stringify(body.input).length),
    };
  }

  /**
   * The items a turn continuing `previousId` starts with: from the connection's own turns first,
   * otherwise from the stored chain ending at `previousId`, walked back to its first response.
   */
  async #historyBefore(
    previousId: string,
    accountId: string,
    connection: ResponsesConnectionHistory | undefined,
  ): Promise<{ history: ResponsesItem[]; link?: ChainLink }> {
    const remembered = connection?.get(previousId);
    if (remembered !== undefined) {
      const { storedChainLength } = remembered;
      return {
        history: historyOf(remembered),
        ...(storedChainLength !== undefined
          ? { link: { previousResponseId: previousId, chainLength: storedChainLength } }
          : {}),
      };
    }
    const chain = await this.#dependencies.store.findResponseChain(
      previousId,
      accountId,
      this.#dependencies.now(),
      this.#maxChainLength,
    );
    if (chain === undefined) throw previousResponseNotFound(previousId);
    const missing = chain[0]?.previousResponseId ?? null;
    if (missing !== null) throw previousResponseHistoryBroken(previousId, missing);
    return {
      history: chain.flatMap(historyOf),
      link: { previousResponseId: previousId, chainLength: chain.length },
    };
  }

  /**
   * The stored response that owns the input's last item reference, and its chain, when the
   * chain is whole: the one candidate whose history the input may re-send (docs/decisions/0038).
   * One read of the item index and the chain's one recursive query; a broken or over-long chain
   * is no candidate (the turn then starts a chain, as before).
   */
  async #referencedChain(
    input: readonly ResponsesItem[],
    accountId: string,
  ): Promise<ReferencedChain | undefined> {
    const itemId = lastReferencedId(input);
    if (itemId === undefined) return undefined;
    const { store, now } = this.#dependencies;
    const responseId = await store.findResponseOfItem(itemId, accountId, now());
    if (responseId === undefined) return undefined;
    const chain = await store.findResponseChain(responseId, accountId, now(), this.#maxChainLength);
    if (chain === undefined || (chain[0]?.previousResponseId ?? null) !== null) return undefined;
    return { responseId, chain };
  }

  get #maxChainLength(): number {
    return this.#dependencies.maxChainLength ?? defaultMaxChainLength;
  }

  /**
   * The connection's own turns first (their `store: false` items), then the chain of the
   * response the input's last reference names (its earlier items live as long as it does,
   * docs/decisions/0037), then the store.
   */
  async #findOutputItems(
    ids: readonly string[],
    accountId: string,
    history: ResponsesConnectionHistory | undefined,
    chain: readonly StoredResponse[] | undefined,
  ): Promise<Map<string, ResponsesItem>> {
    const found = new Map<string, ResponsesItem>();
    for (const id of ids) {
      const item = history?.findOutputItem(id);
      if (item !== undefined) found.set(id, item);
    }
    const inChain = new Map<string, ResponsesItem>();
    // Oldest first, so an id met again in the chain names its latest item.
    for (const item of (chain ?? []).flatMap((response) => response.output)) {
      if (typeof item.id === 'string') inChain.set(item.id, item);
    }
    for (const id of ids) {
      const item = inChain.get(id);
      if (item !== undefined && !found.has(id)) found.set(id, item);
    }
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length === 0) return found;
    const stored = await this.#dependencies.store.findOutputItems(
      missing,
      accountId,
      this.#dependencies.now(),
    );
    for (const [id, item] of stored) found.set(id, item);
    return found;
  }

  /**
   * The body with its `previous_response_id` and item references expanded into `input` and
   * nothing else changed, for `/v1/responses/compact`: what is compacted, and the
   * user messages kept beside the compaction item, are the whole conversation, and no upstream
   * is asked for a response it never kept.
   */
  async withHistory(
    body: Record<string, unknown>,
    accountId: string,
  ): Promise<Record<string, unknown>> {
    if (previousResponseId(body) === undefined && !hasItemReferences(body.input)) return body;
    const expanded = await this.expand(body, accountId);
    const { previous_response_id: _previous, ...rest } = body;
    return copyWith(rest, { input: expanded.input });
  }

  /**
   * Answers a WebSocket prewarm (`generate: false`, docs/clients.md): a completed response without
   * output, usage or upstream call, whose id the connection's next turn may continue. Nothing
   * is stored: a prewarm is neither metered nor limited, so it may not write to the database.
   */
  async prewarm(
    body: Record<string, unknown>,
    principal: Principal,
    history: ResponsesConnectionHistory,
  ): Promise<unknown[]> {
    const expanded = await this.expand(body, principal.account.id, { history });
    const responseId = mintResponseId('responses');
    history.remember(responseId, { input: expanded.input, output: [] });
    const encoder = createResponsesStreamEncoder({
      responseId,
      model: String(body.model),
      createdAt: Math.floor(this.#dependencies.now() / 1000),
    });
    const finish = { unified: 'stop' as const, raw: undefined };
    return encoder
      .encode({ type: 'finish', finishReason: finish, usage: emptyUsage() })
      .map((event) => event.data);
  }

  #keeps(body: Record<string, unknown>): boolean {
    if (typeof body.store === 'boolean') return body.store;
    return this.#dependencies.storeByDefault;
  }

  async #prepare(input: GenerationInput, history: ResponsesConnectionHistory | undefined) {
    const { body } = input;
    const keep = this.#keeps(body);
    const needed =
      keep ||
      history !== undefined ||
      previousResponseId(body) !== undefined ||
      hasItemReferences(body.input) ||
      (body.conversation !== undefined && body.conversation !== null);
    if (!needed) return undefined;
    const accountId = input.principal.account.id;
    const createdAt = this.#dependencies.now();
    const expanded = await this.expand(body, accountId, {
      remembers: keep || history !== undefined,
      ...(history !== undefined ? { history } : {}),
    });
    const turn: Turn = {
      body,
      accountId,
      keep,
      createdAt,
      input: expanded.input,
      ownInput: expanded.ownInput,
      link: expanded.link,
      history,
    };
    return {
      body: expanded.body,
      bodyBytes: input.bodyBytes + expanded.historyBytes,
      observe: (reply: Parameters<typeof recordFinishedResponse>[0]) =>
        recordFinishedResponse(reply, (finished) => this.#record(turn, finished)),
    };
  }

  /**
   * Keeps a finished turn: only what it added, linked to the stored response it continued, or
   * its whole history when it starts a chain (no stored previous response, or a chain at its
   * length limit). The connection remembers the whole turn either way.
   */
  async #record(turn: Turn, finished: FinishedResponse): Promise<void> {
    const stored = turn.keep ? await this.#save(turn, finished) : undefined;
    turn.history?.remember(finished.id, {
      input: turn.input,
      output: finished.output,
      ...(stored !== undefined ? { storedChainLength: stored } : {}),
    });
  }

  /** The length of the chain the saved turn ends, or undefined when it could not be saved. */
  async #save(turn: Turn, finished: FinishedResponse): Promise<number | undefined> {
    const link =
      turn.link !== undefined && turn.link.chainLength < this.#maxChainLength
        ? turn.link
        : undefined;
    try {
      await this.#dependencies.store.saveResponse({
        id: finished.id,
        accountId: turn.accountId,
        model: String(turn.body.model),
        createdAt: turn.createdAt,
        expiresAt: turn.createdAt + this.#dependencies.retentionMs,
        instructions: typeof turn.body.instructions === 'string' ? turn.body.instructions : null,
        previousResponseId: link?.previousResponseId ?? null,
        input: link !== undefined ? turn.ownInput : turn.input,
        output: finished.output,
      });
      return link !== undefined ? link.chainLength + 1 : 1;
    } catch (error) {
      this.#dependencies.onSaveFailure(error, finished.id);
      return undefined;
    }
  }
}
