/**
 * The base URL links in tool answers start with: the configured one, else the request's protocol
 * and Host (forwarded headers are not trusted); undefined when the Host makes no plain origin.
 */
export function resolveBaseUrl(
  configured: string | undefined,
  protocol: string,
  host: string | undefined,
): string | undefined {
  if (configured !== undefined) return configured.replace(/\/+$/, '');
  if (host === undefined || host === '') return undefined;
  try {
    const url = new URL(`${protocol}://${host}`);
    const plain = url.pathname === '/' && url.search === '' && url.hash === '';
    return plain && url.username === '' && url.password === '' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
