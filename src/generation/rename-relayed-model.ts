/**
 * The `model` member of a JSON text and its string value. A JSON string cannot hold an
 * unescaped quote, so text inside content (`\"model\":…`) never matches.
 */
const modelMember = /"model"\s*:\s*("(?:[^"\\]|\\.)*")/;

/**
 * The same-dialect fast path relays the upstream's bytes, yet the client must see the model id
 * it asked for, the catalog's, as the translated path renders it, not the deployment's
 * upstream name. Rewrites the first `model` member of a relayed JSON text; text that already
 * names the catalog model, or names none, comes back as the same string (no copy).
 */
export function createModelRenamer(catalogModel: string): (json: string) => string {
  const quoted = JSON.stringify(catalogModel);
  return (json) => {
    const match = modelMember.exec(json);
    const value = match?.[1];
    if (match === null || value === undefined || value === quoted) return json;
    const start = match.index + match[0].length - value.length;
    return json.slice(0, start) + quoted + json.slice(start + value.length);
  };
}
