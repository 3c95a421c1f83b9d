import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, callApi, describeFailure, useCsrfToken, whenSignedOut } from './api-client.ts';
import type { Session } from './api-types.ts';
import { Notice } from './components/page.tsx';
import { ImageJobsPage } from './pages/image-jobs-page.tsx';
import { FilesPage } from './pages/files-page.tsx';
import { OperatorAccountsPage } from './pages/operator-accounts-page.tsx';
import { OperatorMetricsPage } from './pages/operator-metrics-page.tsx';
import { OperatorRoutingPage } from './pages/operator-routing-page.tsx';
import { OperatorTokensPage } from './pages/operator-tokens-page.tsx';
import { OverviewPage } from './pages/overview-page.tsx';
import { RequestsPage } from './pages/requests-page.tsx';
import { SignInPage } from './pages/sign-in-page.tsx';
import { TokensPage } from './pages/tokens-page.tsx';
import { UsagePage } from './pages/usage-page.tsx';
import { basePath, navigate, useRoute } from './use-route.ts';

type SessionState =
  | { kind: 'loading' }
  | { kind: 'signed-out'; message: string | undefined; failed: boolean }
  | { kind: 'signed-in'; session: Session };

const accountPages = [
  { route: '/', label: 'Overview' },
  { route: '/usage', label: 'Usage' },
  { route: '/requests', label: 'Requests' },
  { route: '/tokens', label: 'Tokens' },
  { route: '/files', label: 'Files' },
  { route: '/image-jobs', label: 'Image jobs' },
];

const operatorPages = [
  { route: '/admin/accounts', label: 'Accounts' },
  { route: '/admin/tokens', label: 'Token search' },
  { route: '/admin/routing', label: 'Routing health' },
  { route: '/admin/metrics', label: 'Metrics' },
];

const usedLinkMessage =
  'This sign-in link has already been used or has expired. Ask your operator for a new one.';

/** The session decides what shows: the sign-in page, or the pages of the signed-in account. */
export function App(props: { signInCode: string | undefined }) {
  const route = useRoute();
  const [state, setState] = useState<SessionState>({ kind: 'loading' });

  useEffect(() => {
    whenSignedOut(() => {
      useCsrfToken(undefined);
      setState({
        kind: 'signed-out',
        message: 'Your session has ended. Open a new sign-in link to continue.',
        failed: false,
      });
    });
    const code = props.signInCode;
    const started =
      code === undefined
        ? callApi<Session>('GET', '/api/dashboard/session')
        : callApi<Session>('POST', '/api/dashboard/session', { code });
    started.then(
      (session) => {
        useCsrfToken(session.csrf_token);
        setState({ kind: 'signed-in', session });
        if (code !== undefined) navigate('/');
      },
      (error: unknown) => {
        const signInRefused = error instanceof ApiFailure && error.status === 401;
        setState({
          kind: 'signed-out',
          message:
            code === undefined
              ? signInRefused
                ? undefined
                : describeFailure(error)
              : signInRefused
                ? usedLinkMessage
                : describeFailure(error),
          failed: code !== undefined || !signInRefused,
        });
      },
    );
  }, [props.signInCode]);

  if (state.kind === 'loading') return <p class="muted loading">Loading…</p>;
  if (state.kind === 'signed-out') {
    return <SignInPage message={state.message} failed={state.failed} />;
  }
  const { session } = state;
  const signOut = async () => {
    try {
      await callApi('POST', '/api/dashboard/sign-out');
      useCsrfToken(undefined);
      setState({ kind: 'signed-out', message: 'You are signed out.', failed: false });
    } catch (error) {
      alert(describeFailure(error));
    }
  };
  return (
    <div class="layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top-bar">
        <span class="brand">Switchyard</span>
        <span class="account-name" title={session.account.id}>
          {session.account.name}
          {session.account.is_admin ? ' (operator)' : ''}
        </span>
        <button type="button" class="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav class="side-nav" aria-label="Dashboard">
        <ul>
          {accountPages.map((page) => (
            <NavLink key={page.route} {...page} current={route} />
          ))}
        </ul>
        {session.account.is_admin && (
          <>
            <p class="nav-group">Operator</p>
            <ul>
              {operatorPages.map((page) => (
                <NavLink key={page.route} {...page} current={route} />
              ))}
            </ul>
          </>
        )}
      </nav>
      <main id="main">
        <CurrentPage route={route} session={session} />
      </main>
    </div>
  );
}

function NavLink(props: { route: string; label: string; current: string }) {
  const href = props.route === '/' ? basePath : `${basePath}${props.route}`;
  return (
    <li>
      <a href={href} aria-current={props.route === props.current ? 'page' : undefined}>
        {props.label}
      </a>
    </li>
  );
}

function CurrentPage(props: { route: string; session: Session }) {
  const admin = props.session.account.is_admin;
  switch (props.route) {
    case '/':
    case '/sign-in':
      return <OverviewPage />;
    case '/usage':
      return <UsagePage />;
    case '/requests':
      return <RequestsPage />;
    case '/tokens':
      return <TokensPage />;
    case '/files':
      return <FilesPage />;
    case '/image-jobs':
      return <ImageJobsPage />;
  }
  if (admin) {
    switch (props.route) {
      case '/admin':
      case '/admin/accounts':
        return <OperatorAccountsPage />;
      case '/admin/tokens':
        return <OperatorTokensPage />;
      case '/admin/routing':
        return <OperatorRoutingPage />;
      case '/admin/metrics':
        return <OperatorMetricsPage />;
    }
  }
  return (
    <section>
      <h1 tabIndex={-1}>Page not found</h1>
      <Notice kind="info">
        There is no page here. <a href={basePath}>Go to the overview</a>.
      </Notice>
    </section>
  );
}
