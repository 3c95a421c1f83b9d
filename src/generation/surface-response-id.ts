import { randomBytes } from 'node:crypto';
import type { SurfaceName } from '../surfaces/surface-codec.ts';

const prefixes: Record<SurfaceName, string> = {
  messages: 'msg_',
  responses: 'resp_',
  chat: 'chatcmpl-',
};

/** A response id in the client dialect's own form. */
export function mintResponseId(surface: SurfaceName): string {
  return `${prefixes[surface]}${randomBytes(12).toString('hex')}`;
}
