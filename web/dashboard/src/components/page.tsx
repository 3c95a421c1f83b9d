import type { ComponentChildren } from 'preact';

/** A page's frame: its heading, which takes the focus after navigation (tabIndex -1). */
export function Page(props: { title: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        {props.title}
      </h1>
      {props.children}
    </section>
  );
}

/** A failure or outcome, announced to screen readers. */
export function Notice(props: { kind: 'error' | 'success' | 'info'; children: ComponentChildren }) {
  return (
    <p class={`notice notice-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </p>
  );
}

/** Tables scroll sideways inside their own box on a narrow screen, not the whole page. */
export function TableScroll(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}

/** What a loaded section shows while loading or after a failure. */
export function LoadState(props: { loading: boolean; error: string | undefined }) {
  if (props.error !== undefined) return <Notice kind="error">{props.error}</Notice>;
  if (props.loading) return <p class="muted">Loading…</p>;
  return null;
}
