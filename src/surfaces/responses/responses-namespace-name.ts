/**
 * Codex groups function tools in `namespace` tools and the model calls them as `name` plus
 * `namespace`. The canonical model has one flat list of tools, so a namespaced function becomes
 * `<namespace>--<name>`. The separator stays inside `^[a-zA-Z0-9_-]+$`, so every upstream
 * accepts the flat name as it is, and the encoder can split it back from the name alone
 * (surface encoders never see the call). That is exact only when no plain name contains `--`
 * and no namespace ends in `-`; the decoder reports names that break this rule.
 */
export const namespaceSeparator = '--';

export function qualifyNamespacedName(namespace: string, name: string): string {
  return `${namespace}${namespaceSeparator}${name}`;
}

export function splitQualifiedName(qualified: string): { namespace?: string; name: string } {
  const at = qualified.indexOf(namespaceSeparator);
  if (at <= 0) return { name: qualified };
  return {
    namespace: qualified.slice(0, at),
    name: qualified.slice(at + namespaceSeparator.length),
  };
}

/** Why a plain function name cannot be carried, or undefined when it can. */
export function checkPlainFunctionName(name: string): string | undefined {
  return name.includes(namespaceSeparator)
    ? `Function names containing "${namespaceSeparator}" are reserved on this route for namespace tools.`
    : undefined;
}

/** Why a namespace name cannot be carried, or undefined when it can. */
export function checkNamespaceName(namespace: string): string | undefined {
  if (namespace.includes(namespaceSeparator) || namespace.endsWith('-')) {
    return `Namespace names containing "${namespaceSeparator}" or ending in "-" cannot be flattened exactly on this route.`;
  }
  return undefined;
}
