import type { Principal } from '../../auth/authenticator.ts';
import type { CreditLedger } from '../../billing/credit-ledger.ts';
import type { ImageSourceAvailability } from './image-types.ts';

export interface ImageSourcesDependencies {
  ledger: Pick<CreditLedger, 'getBalance'>;
  /** Whether the configuration has an `images` section, without which nothing can be generated. */
  configured: boolean;
}

/** Each image source and whether a token can use it now, for one principal. */
export type ImageSources = (principal: Principal) => Promise<ImageSourceAvailability[]>;

/**
 * GET /v1/images/sources (and the MCP `image_sources` tool): it tells a client whether
 * image generation is available at all, so it answers also when nothing is configured, with the
 * reason (docs/images.md).
 */
export async function listImageSources(
  dependencies: ImageSourcesDependencies,
  principal: Principal,
): Promise<ImageSourceAvailability[]> {
  return [
    { source: 'credits', ...(await creditsAvailability(dependencies, principal)) },
    {
      source: 'connected',
      available: false,
      // Client accounts cannot link provider keys or subscription logins (docs/images.md).
      reason: 'Provider-connected image generation is not offered to client tokens.',
    },
  ];
}

async function creditsAvailability(
  dependencies: ImageSourcesDependencies,
  principal: Principal,
): Promise<{ available: boolean; reason: string | null }> {
  if (!dependencies.configured) {
    return { available: false, reason: 'Image generation is not configured on this gateway.' };
  }
  if (!principal.apiKey.permissions.includes('image:create')) {
    return { available: false, reason: 'This token lacks the image:create permission.' };
  }
  const balance = await dependencies.ledger.getBalance(principal.account.id);
  if (balance.available <= 0) {
    return { available: false, reason: 'The credits balance is empty. Add credits.' };
  }
  return { available: true, reason: null };
}
