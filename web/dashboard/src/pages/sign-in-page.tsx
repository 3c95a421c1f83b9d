import { Notice } from '../components/page.tsx';

/** Shown whenever there is no session: after a refused link, after sign-out, or on a first visit. */
export function SignInPage(props: { message: string | undefined; failed: boolean }) {
  return (
    <main id="main" class="sign-in">
      <h1 tabIndex={-1}>Switchyard dashboard</h1>
      {props.message !== undefined && (
        <Notice kind={props.failed ? 'error' : 'info'}>{props.message}</Notice>
      )}
      <p>
        Sign in with the one-time link your operator gives you. An operator makes one with{' '}
        <code>switchyard dashboard link &lt;account&gt;</code>; each link works once, for 15
        minutes.
      </p>
    </main>
  );
}
