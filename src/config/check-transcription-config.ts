import type { Config } from './config-schema.ts';

/**
 * What the schema cannot say about transcription (docs/transcription.md): a transcription model
 * is deployed only on providers of kind `openai-transcription`, and a text model never is (its
 * routes would send chat bodies to an audio route); model ids are unique across both lists, so
 * an id names one thing; prices become integer micro-credits, so at most 6 decimals.
 */
export function checkTranscriptionConfig(config: Config): string[] {
  const problems: string[] = [];
  config.models.forEach((model, modelIndex) => {
    model.deployments.forEach((deployment, deploymentIndex) => {
      if (config.providers[deployment.provider]?.kind === 'openai-transcription') {
        problems.push(
          `models[${modelIndex}].deployments[${deploymentIndex}].provider: "${deployment.provider}" is an openai-transcription provider; text models need a text provider`,
        );
      }
    });
  });
  const transcription = config.transcription;
  if (transcription === undefined) return problems;
  const textIds = new Set(config.models.map((model) => model.id));
  const seen = new Set<string>();
  transcription.models.forEach((model, modelIndex) => {
    const where = `transcription.models[${modelIndex}]`;
    if (seen.has(model.id) || textIds.has(model.id))
      problems.push(`${where}.id: duplicate model id "${model.id}"`);
    seen.add(model.id);
    model.deployments.forEach((deployment, deploymentIndex) => {
      const provider = config.providers[deployment.provider];
      if (provider === undefined) {
        problems.push(
          `${where}.deployments[${deploymentIndex}].provider: no provider named "${deployment.provider}"`,
        );
      } else if (provider.kind !== 'openai-transcription') {
        problems.push(
          `${where}.deployments[${deploymentIndex}].provider: "${deployment.provider}" is not an openai-transcription provider`,
        );
      }
    });
    for (const [kind, price] of Object.entries(model.pricing)) {
      if (price !== undefined && !Number.isInteger(Math.round(price * 1e6 * 1e3) / 1e3))
        problems.push(`${where}.pricing.${kind}: at most 6 decimal places`);
    }
    if ((model.pricing.input === undefined) !== (model.pricing.output === undefined))
      problems.push(`${where}.pricing: set both input and output token prices, or neither`);
  });
  return problems;
}
