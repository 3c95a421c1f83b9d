import { randomHex } from '../shared/random-hex.ts';
import type { SurfaceName } from '../surfaces/surface-codec.ts';

const prefixes: Record<SurfaceName, string> = {
  messages: 'msg_',
  responses: 'resp_',
  chat: 'chatcmpl-',
};

/** A response id in the client dialect's own form. */
export function mintResponseId(surface: SurfaceName): string {
  return `${prefixes[surface]}${randomHex(12)}`;
}
