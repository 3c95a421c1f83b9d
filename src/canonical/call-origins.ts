import type { GenerationCall, TranslationIssue } from './generation-call.ts';

/**
 * Where each piece of a canonical call came from in the client's body, so that an issue a
 * provider codec reports in canonical terms (`topK`, `messages[1].content[0]`) names the client's
 * own field in its own dialect (`top_k`, `input[1]`, `messages[1].reasoning_content`). Surface
 * decoders record it as they build the call; it is never sent anywhere.
 */
export class CallOrigins {
  readonly #paths = new WeakMap<object, string>();
  /** Client path of each canonical field path a provider may name (`topK` → `top_k`). */
  readonly #fields = new Map<string, string>();
  /**
   * Client name of a part's field (`input` → `function.arguments` for a chat tool call, a tool
   * result's `content` → `output` for a responses function call output).
   */
  readonly #partFields: Readonly<Record<string, string>>;

  constructor(partFields: Readonly<Record<string, string>> = {}) {
    this.#partFields = partFields;
  }

  /** Notes that `target` (a canonical message or part) was decoded from `path`; returns it. */
  record<T extends object>(target: T, path: string): T {
    this.#paths.set(target, path);
    return target;
  }

  /** Notes the client path of a canonical field, when the client sent it. */
  recordField(canonicalPath: string, clientPath: string): void {
    this.#fields.set(canonicalPath, clientPath);
  }

  /** The client's path for a canonical path into `call`; the canonical path when unknown. */
  locate(call: GenerationCall, canonicalPath: string): string {
    const field = this.#fields.get(canonicalPath);
    if (field !== undefined) return field;
    const match = /^messages\[(\d+)\](?:\.content(?:\[(\d+)\])?)?(?:\.(\w+)(.*))?$/.exec(
      canonicalPath,
    );
    if (match === null) return canonicalPath;
    const message = call.messages[Number(match[1])];
    const part = match[2] === undefined ? undefined : message?.content[Number(match[2])];
    const partPath = part === undefined ? undefined : this.#paths.get(part);
    const base = partPath ?? (message === undefined ? undefined : this.#paths.get(message));
    if (base === undefined) return canonicalPath;
    const partField = match[3];
    if (partField === undefined || partPath === undefined) return base;
    return `${base}.${this.#partFields[partField] ?? partField}${match[4] ?? ''}`;
  }

  /** The issues with their paths located in the client's body. */
  locateIssues(call: GenerationCall, issues: readonly TranslationIssue[]): TranslationIssue[] {
    return issues.map((issue) => ({ ...issue, path: this.locate(call, issue.path) }));
  }
}
