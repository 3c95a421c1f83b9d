import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { parseUntrustedJson } from '../shared/parse-json.ts';

/**
 * What a sealed compaction item carries (docs/decisions/0013): the summary the gateway wrote, or
 * the `encrypted_content` of a compaction item an upstream made, with the provider that made it.
 */
export type CompactionPayload =
  | { kind: 'summary'; summary: string }
  | { kind: 'upstream'; provider: string; encryptedContent: string };

export type OpenedCompaction =
  | { ok: true; payload: CompactionPayload }
  /**
   * `format`: not a token this gateway makes; `key`: sealed under another seal key;
   * `integrity`: altered, or sealed for another account (the two cannot be told apart).
   */
  | { ok: false; reason: 'format' | 'key' | 'integrity' };

export interface CompactionSeal {
  seal(payload: CompactionPayload, accountId: string): string;
  open(token: string, accountId: string): OpenedCompaction;
}

/** The version lives in the prefix: a new format gets a new prefix, old tokens keep opening. */
export const compactionTokenPrefix = 'sy1.compaction.';

const keyIdBytes = 4;
const ivBytes = 12;
const tagBytes = 16;
/** A secret shorter than this is refused: it would be guessable. */
export const minimumSealSecretLength = 32;

function associatedData(accountId: string): Buffer {
  return Buffer.from(`${compactionTokenPrefix}${accountId}`, 'utf8');
}

function isPayload(value: unknown): value is CompactionPayload {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (record.kind === 'summary') return typeof record.summary === 'string';
  if (record.kind === 'upstream') {
    return typeof record.provider === 'string' && typeof record.encryptedContent === 'string';
  }
  return false;
}

/**
 * AES-256-GCM over the payload JSON, the account id as additional authenticated data, so a token
 * opens only for the account it was made for and any changed byte fails the tag. The key is
 * derived from the operator's secret with HKDF, so the secret may be any long random string.
 * Token: prefix + base64url(key id ‖ IV ‖ tag ‖ ciphertext); the key id tells a token sealed
 * under a former key apart from an altered one.
 */
export function createCompactionSeal(secret: string): CompactionSeal {
  if (secret.length < minimumSealSecretLength) {
    throw new RangeError(
      `The compaction seal secret must be at least ${minimumSealSecretLength} characters.`,
    );
  }
  const key = Buffer.from(hkdfSync('sha256', secret, '', 'switchyard compaction seal v1', 32));
  const keyId = Buffer.from(
    hkdfSync('sha256', secret, '', 'switchyard compaction seal v1 key id', keyIdBytes),
  );

  return {
    seal(payload, accountId) {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(associatedData(accountId));
      const ciphertext = Buffer.concat([
        cipher.update(JSON.stringify(payload), 'utf8'),
        cipher.final(),
      ]);
      const packed = Buffer.concat([keyId, iv, cipher.getAuthTag(), ciphertext]);
      return compactionTokenPrefix + packed.toString('base64url');
    },

    open(token, accountId) {
      if (!token.startsWith(compactionTokenPrefix)) return { ok: false, reason: 'format' };
      const encoded = token.slice(compactionTokenPrefix.length);
      if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return { ok: false, reason: 'format' };
      const packed = Buffer.from(encoded, 'base64url');
      // Unused low bits of the last character would let two spellings open alike.
      if (packed.toString('base64url') !== encoded) return { ok: false, reason: 'format' };
      if (packed.length <= keyIdBytes + ivBytes + tagBytes) return { ok: false, reason: 'format' };
      if (!packed.subarray(0, keyIdBytes).equals(keyId)) return { ok: false, reason: 'key' };
      const iv = packed.subarray(keyIdBytes, keyIdBytes + ivBytes);
      const tag = packed.subarray(keyIdBytes + ivBytes, keyIdBytes + ivBytes + tagBytes);
      const ciphertext = packed.subarray(keyIdBytes + ivBytes + tagBytes);
      let plaintext: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
        decipher.setAAD(associatedData(accountId));
        decipher.setAuthTag(tag);
        plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch {
        return { ok: false, reason: 'integrity' };
      }
      let payload: unknown;
      try {
        payload = parseUntrustedJson(plaintext);
      } catch {
        return { ok: false, reason: 'format' };
      }
      return isPayload(payload) ? { ok: true, payload } : { ok: false, reason: 'format' };
    },
  };
}
