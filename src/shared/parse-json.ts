import secureJson from 'secure-json-parse';

/**
 * The one place that parses untrusted JSON (STYLE.md §5): prototype-poisoning keys are refused,
 * and a syntax error keeps the parser's position so the client learns where its body broke.
 */
export function parseUntrustedJson(text: string): unknown {
  return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
}
