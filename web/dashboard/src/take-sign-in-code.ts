/**
 * The one-time code of a sign-in link (`/dashboard/sign-in#code=…`), taken out of the address
 * bar before anything else runs: the fragment never reaches a server, and removed it is neither
 * in the history, nor bookmarked, nor visible over a shoulder.
 */
export function takeSignInCode(): string | undefined {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const code = fragment.get('code');
  if (location.hash !== '') {
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return code === null || code === '' ? undefined : code;
}
