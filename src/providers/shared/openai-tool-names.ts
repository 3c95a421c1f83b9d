import { createHash } from 'node:crypto';
import type { GenerationCall } from '../../canonical/generation-call.ts';

/**
 * OpenAI function names (chat and responses alike): at most 64 characters of `[a-zA-Z0-9_-]`
 * (docs/architecture.md).
 */
const validName = /^[a-zA-Z0-9_-]{1,64}$/;
const hashLength = 8;

/**
 * A name the upstream accepts: valid names unchanged; others become their sanitised prefix, `_`
 * and 8 hex digits of the SHA-256 of the whole original name. Deterministic, so the same tool has
 * the same upstream name on every turn, and distinct names stay distinct.
 */
export function toOpenAIToolName(name: string): string {
  if (validName.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, hashLength);
  const prefix = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64 - hashLength - 1);
  return `${prefix}_${hash}`;
}

export interface OpenAIToolNames {
  toUpstream(name: string): string;
  /** The client's name for an upstream name; unknown names come back unchanged. */
  fromUpstream(name: string): string;
  /** Upstream names that two different client names would share (practically never). */
  collisions: string[];
}

/** The name mapping of one call: its tools, its tool choice and the calls in its history. */
export function createOpenAIToolNames(call: GenerationCall): OpenAIToolNames {
  const originals = new Map<string, string>();
  const collisions: string[] = [];
  const remember = (name: string) => {
    const upstream = toOpenAIToolName(name);
    const known = originals.get(upstream);
    if (known === undefined) originals.set(upstream, name);
    else if (known !== name && !collisions.includes(upstream)) collisions.push(upstream);
  };
  for (const tool of call.tools) remember(tool.name);
  if (call.toolChoice?.type === 'tool') remember(call.toolChoice.toolName);
  for (const message of call.messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) if (part.type === 'tool-call') remember(part.toolName);
  }
  return {
    toUpstream: toOpenAIToolName,
    fromUpstream: (name) => originals.get(name) ?? name,
    collisions,
  };
}
