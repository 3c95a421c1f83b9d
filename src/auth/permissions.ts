/** The permission labels of docs/api.md, attached to operations; a token may carry any of them. */
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
 * A token is tied to one interface (docs/api.md). `credits` is the client API;
 * `connected` the administrator-only provider-connected routes (docs/decisions/0010).
 */
export const tokenInterfaces = ['credits', 'connected'] as const;
export type TokenInterface = (typeof tokenInterfaces)[number];
