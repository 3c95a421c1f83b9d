import type { ServerResponse } from 'node:http';
import type { FakeIdSource } from './fake-ids.ts';
import type { FakeKeyBehaviour } from './fake-key-behaviour.ts';
import type { FakePromptCache } from './fake-prompt-cache.ts';
import type { FakeReplyScript, FakeTokenCountReply, RecordedRequest } from './fake-reply.ts';

/** What a provider's own wire reads of the fake's shared state (queues, key rules, cache). */
export interface FakeWireState {
  takeReply(): FakeReplyScript | undefined;
  takeTokenCount(): FakeTokenCountReply | undefined;
  keyRule(key: string | undefined): FakeKeyBehaviour | undefined;
  promptCache: FakePromptCache | undefined;
  ids: FakeIdSource;
  /** The fake's `requireKey`: a Bearer key the routes accept (any key when unset). */
  requireKey: string | undefined;
}

/**
 * A cloud provider's own routes, credential check and framing, answered in full by its own
 * handler (wire-bedrock.ts: binary event-stream framing) with the fake's reply scripts.
 */
export interface FakeWireHandler {
  matches(path: string): boolean;
  /** `markCut` tells the server the fake itself cut the connection (not a client abort). */
  answer(
    recorded: RecordedRequest,
    response: ServerResponse,
    state: FakeWireState,
    markCut: () => void,
  ): Promise<void>;
}
