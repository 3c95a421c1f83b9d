import type { CatalogModel, RoutingTarget } from '../catalog/model-catalog.ts';

/**
 * The configured targets an operator names: one target id (`provider/upstream-model#key-id`), a
 * key scope (`provider#key-id`), or a key id alone (every target using that key, whatever its
 * provider). A target several models deploy is listed once. Empty when nothing matches.
 */
export function findTargets(models: readonly CatalogModel[], name: string): RoutingTarget[] {
  const found = new Map<string, RoutingTarget>();
  for (const model of models) {
    for (const target of model.targets) {
      if (found.has(target.id)) continue;
      if (target.id === name || target.keyScope === name || target.key.id === name)
        found.set(target.id, target);
    }
  }
  return [...found.values()];
}
