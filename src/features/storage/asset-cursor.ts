import type { AssetCursor } from './asset-store.ts';

/**
 * `next_cursor` (docs/api.md) names the last file of a page by its sort key (created time, id),
 * so a page boundary stays put while files are added or deleted. Opaque to clients: base64url.
 */
export function encodeAssetCursor(cursor: AssetCursor): string {
  return Buffer.from(`${cursor.createdAt}.${cursor.id}`, 'utf8').toString('base64url');
}

/** The cursor, or undefined when the text is not one this gateway made. */
export function decodeAssetCursor(text: string): AssetCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return undefined;
  const match = /^(\d{1,16})\.(asset_[0-9a-f]{32})$/.exec(
    Buffer.from(text, 'base64url').toString('utf8'),
  );
  if (match === null) return undefined;
  const createdAt = Number(match[1]);
  return Number.isSafeInteger(createdAt) ? { createdAt, id: match[2] as string } : undefined;
}
