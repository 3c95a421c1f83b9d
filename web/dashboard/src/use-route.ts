import { useEffect, useState } from 'preact/hooks';

/** Every page lives under this path; the server answers index.html for any of them. */
export const basePath = '/dashboard';

/** The page path after /dashboard: `/`, `/usage`, `/admin/accounts`, … */
function currentRoute(): string {
  const path = location.pathname.startsWith(basePath)
    ? location.pathname.slice(basePath.length)
    : '/';
  return path === '' ? '/' : path.replace(/\/+$/, '') || '/';
}

const listeners = new Set<() => void>();

/** Moves to another page without a reload, as a link click does. */
export function navigate(route: string): void {
  history.pushState(null, '', `${basePath}${route === '/' ? '' : route}`);
  for (const listener of listeners) listener();
  // A new page starts at its top, and its heading gets the focus (keyboard and screen readers).
  window.scrollTo(0, 0);
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

/**
 * The current page's route. Same-origin links under /dashboard are followed in place: real `<a
 * href>` elements (open in a new tab, copy the address), without reloading the app on a click.
 */
export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** Installed once: a plain left click on an in-app link navigates without a reload. */
export function followLinksInPlace(): void {
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element | null)?.closest?.('a');
    if (
      link === null ||
      link === undefined ||
      link.target !== '' ||
      link.hasAttribute('download')
    ) {
      return;
    }
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin) return;
    if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return;
    event.preventDefault();
    navigate(url.pathname.slice(basePath.length) || '/');
  });
}
