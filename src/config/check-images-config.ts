import type { Config } from './config-schema.ts';

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function hasSixDecimalsAtMost(credits: number): boolean {
  return Number.isInteger(Math.round(credits * 1e6 * 1e3) / 1e3);
}

/**
 * What the schema cannot say about `images` (docs/images.md): ids are unique, deployments name a
 * configured provider and one model's deployments share a provider kind (the request is checked
 * once against what that kind can express), every offered resolution and quality has exactly
 * one price, and URLs are http(s).
 */
export function checkImagesConfig(images: Config['images']): string[] {
  if (images === undefined) return [];
  const problems: string[] = [];
  const providers = new Map<string, string>();
  images.providers.forEach((provider, index) => {
    const at = `images.providers[${index}]`;
    if (providers.has(provider.id)) problems.push(`${at}.id: duplicate id "${provider.id}"`);
    providers.set(provider.id, provider.kind);
    if (!isHttpUrl(provider.baseUrl)) problems.push(`${at}.baseUrl: not an http(s) URL`);
    provider.fetchOrigins.forEach((origin, originIndex) => {
      if (!isHttpUrl(origin) || new URL(origin).origin !== origin.replace(/\/$/, ''))
        problems.push(`${at}.fetchOrigins[${originIndex}]: not an http(s) origin`);
    });
  });
  const models = new Set<string>();
  images.models.forEach((model, index) => {
    const at = `images.models[${index}]`;
    if (models.has(model.id)) problems.push(`${at}.id: duplicate id "${model.id}"`);
    models.add(model.id);
    const kinds = new Set<string>();
    model.deployments.forEach((deployment, deploymentIndex) => {
      const kind = providers.get(deployment.provider);
      if (kind === undefined)
        problems.push(
          `${at}.deployments[${deploymentIndex}].provider: no images provider "${deployment.provider}"`,
        );
      else kinds.add(kind);
    });
    if (kinds.size > 1) problems.push(`${at}.deployments: providers of different kinds`);
    const qualities = model.qualities ?? [undefined];
    if (model.defaultQuality !== undefined && !model.qualities?.includes(model.defaultQuality))
      problems.push(`${at}.defaultQuality: not one of qualities`);
    if (model.qualities !== undefined && model.defaultQuality === undefined)
      problems.push(`${at}.defaultQuality: required when qualities are given`);
    for (const resolution of model.resolutions) {
      for (const quality of qualities) {
        const count = model.prices.filter(
          (price) => price.resolution === resolution && price.quality === quality,
        ).length;
        if (count !== 1)
          problems.push(
            `${at}.prices: needs exactly one price for ${resolution}${quality === undefined ? '' : ` / ${quality}`}, found ${count}`,
          );
      }
    }
    model.prices.forEach((price, priceIndex) => {
      if (!hasSixDecimalsAtMost(price.perImage))
        problems.push(`${at}.prices[${priceIndex}].perImage: at most 6 decimal places`);
    });
  });
  return problems;
}
