import { useState } from 'preact/hooks';

/**
 * Paging by cursor: the stack holds the cursors of the pages before this one, so "Previous" pops
 * back; its last entry is this page's cursor (undefined on the first page).
 */
export function useCursorStack(): {
  cursor: string | undefined;
  cursors: string[];
  setCursors: (cursors: string[]) => void;
} {
  const [cursors, setCursors] = useState<string[]>([]);
  return { cursor: cursors.at(-1), cursors, setCursors };
}

/** The previous and next buttons under a paged table. */
export function CursorPager(props: {
  cursors: string[];
  setCursors: (cursors: string[]) => void;
  /** The next page's cursor; null or undefined on the last page. */
  nextCursor: string | null | undefined;
}) {
  const { cursors, setCursors, nextCursor } = props;
  return (
    <div class="pager">
      <button
        type="button"
        class="secondary"
        disabled={cursors.length === 0}
        onClick={() => setCursors(cursors.slice(0, -1))}
      >
        Previous page
      </button>
      <button
        type="button"
        class="secondary"
        disabled={nextCursor === null || nextCursor === undefined}
        onClick={() => {
          if (nextCursor !== null && nextCursor !== undefined) setCursors([...cursors, nextCursor]);
        }}
      >
        Next page
      </button>
    </div>
  );
}
