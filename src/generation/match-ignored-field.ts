/** `tools[type=web_search]`: every tool of that type, wherever the client put it in `tools`. */
const toolTypeSelector = /^tools\[type=([^\]]+)\]$/;
const toolIndex = /^tools\[(\d+)\](?:$|[.[])/;

/**
 * Whether an operator's `models[].ignoreFields` entry covers a translation issue
 * (docs/architecture.md): the exact path, its top-level field, or — because clients such as
 * Codex put a built-in tool at an index that varies with their configuration — a tool type selector
 * `tools[type=<type>]` that covers every issue inside a tool of that type (decisions/0011).
 */
export function isIgnoredField(
  ignoreFields: ReadonlySet<string>,
  path: string,
  body: Record<string, unknown>,
): boolean {
  if (ignoreFields.has(path)) return true;
  const topLevel = path.split(/[.[]/)[0] ?? path;
  if (ignoreFields.has(topLevel)) return true;
  const index = toolIndex.exec(path)?.[1];
  if (index === undefined || !Array.isArray(body.tools)) return false;
  const tool: unknown = body.tools[Number(index)];
  const type = typeof tool === 'object' && tool !== null ? (tool as { type?: unknown }).type : '';
  if (typeof type !== 'string') return false;
  for (const entry of ignoreFields) {
    if (toolTypeSelector.exec(entry)?.[1] === type) return true;
  }
  return false;
}
