/** The permission labels of spec §4, attached to operations; a token may carry any of them. */
export const permissions = [
  'model:read',
  'inference:inspect',
  'inference:create',
  'search:create',
  'image:create',
  'audio:create',
  'mcp:call',
] as const;

export type Permission = (typeof permissions)[number];

export function isPermission(value: string): value is Permission {
  return (permissions as readonly string[]).includes(value);
}

/**
 * Spec §5.6: a token is tied to one interface. `credits` is the client API of spec §4;
 * `connected` the administrator-only provider-connected routes of spec §4.13.
 */
export const tokenInterfaces = ['credits', 'connected'] as const;
export type TokenInterface = (typeof tokenInterfaces)[number];
