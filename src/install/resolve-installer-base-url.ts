/**
 * The base URL an installer writes into client configuration (docs/installers.md). It
 * is embedded in single-quoted shell and PowerShell strings, JSON and TOML, so only characters
 * that are inert in all of them may pass: no quotes, backslashes, white space or `$`.
 */
const embeddableBaseUrl = /^https?:\/\/[A-Za-z0-9.\-[\]:]+(?:\/[A-Za-z0-9._~%/-]*)?$/;

/** A base URL as configured, normalised (no trailing slash), or undefined when unusable. */
export function normalizeInstallerBaseUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    return undefined;
  }
  const normalized = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  return embeddableBaseUrl.test(normalized) ? normalized : undefined;
}

/** A Host header value: a DNS name or IPv4 address, or a bracketed IPv6 address, and a port. */
const hostHeader =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * Without `server.publicBaseUrl` the URL the client used to fetch the script: the Host header
 * and the connection's protocol. Forwarded headers are ignored on purpose: without a trusted
 * proxy they are client-controlled and, unlike Host, not part of a shared cache's key.
 */
export function deriveInstallerBaseUrl(
  protocol: 'http' | 'https',
  host: string | undefined,
): string | undefined {
  if (host === undefined || !hostHeader.test(host)) return undefined;
  return normalizeInstallerBaseUrl(`${protocol}://${host}`);
}
