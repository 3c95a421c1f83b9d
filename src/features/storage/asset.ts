import { randomBytes } from 'node:crypto';

/**
 * What produced a stored file. Image results and inputs come from the images
 * feature, uploads from transcription; the list grows with the features that store files.
 */
export const assetSources = ['image_result', 'image_input', 'transcription_upload'] as const;
export type AssetSource = (typeof assetSources)[number];

/** A stored file as the storage service and its routes see it (docs/api.md). */
export interface Asset {
  id: string;
  accountId: string;
  name: string;
  /** Bytes. */
  size: number;
  contentType: string;
  /** Hex SHA-256 of the bytes; also the download's ETag. */
  sha256: string;
  source: AssetSource;
  /** Virtual folder, e.g. `images/generations`; no effect on where the bytes live. */
  folder: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds at which the sweeper removes the file (retention policy). */
  deleteAt: number;
  /** True while an active job uses the file (docs/api.md): it cannot be deleted meanwhile. */
  protected: boolean;
}

/**
 * Unguessable: 128 random bits, so an id proves nothing and cannot be enumerated. Lower-case
 * hex keeps it a valid blob key segment.
 */
export function createAssetId(): string {
  return `asset_${randomBytes(16).toString('hex')}`;
}

/**
 * The blob key is derived from the server-made id only (no client string ever
 * becomes part of a path). Two hex characters spread files over 256 folders.
 */
export function blobKeyForAsset(assetId: string): string {
  return `assets/${assetId.slice(6, 8)}/${assetId}`;
}
