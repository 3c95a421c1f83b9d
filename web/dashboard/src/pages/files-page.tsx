import { useState } from 'preact/hooks';
import { callApi, describeFailure, queryString } from '../api-client.ts';
import type {
  CleanupResult,
  Page as ListPage,
  StoragePolicy,
  StorageSummary,
  StoredAsset,
} from '../api-types.ts';
import { CursorPager, useCursorStack } from '../components/cursor-pager.tsx';
import { LoadState, Notice, Page, TableScroll } from '../components/page.tsx';
import { showBytes, showNumber, showSeconds } from '../format-values.ts';
import { useLoad } from '../use-load.ts';

const pageSize = 50;

/** Stored files: quota and use, the list (download, delete), retention, cleanup. */
export function FilesPage() {
  const [round, setRound] = useState(0);
  const { cursor, cursors, setCursors } = useCursorStack();
  const summary = useLoad(
    () => callApi<StorageSummary>('GET', '/api/dashboard/storage'),
    `summary ${round}`,
  );
  const files = useLoad(
    () =>
      callApi<ListPage<StoredAsset>>(
        'GET',
        `/api/dashboard/storage/assets${queryString({ after: cursor, limit: pageSize })}`,
      ),
    `files ${round} ${cursor}`,
  );
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<{ kind: 'error' | 'success' | 'info'; text: string }>();
  const [busy, setBusy] = useState(false);
  const refresh = () => setRound((value) => value + 1);

  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    setOutcome(undefined);
    try {
      setOutcome({ kind: 'success', text: await work() });
    } catch (error) {
      setOutcome({ kind: 'error', text: describeFailure(error) });
    } finally {
      setBusy(false);
    }
  };
  const remove = (asset: StoredAsset) => {
    if (!confirm(`Delete “${asset.name}”?`)) return;
    void act(async () => {
      await callApi('DELETE', `/api/dashboard/storage/assets/${encodeURIComponent(asset.id)}`);
      refresh();
      return `Deleted “${asset.name}”.`;
    });
  };
  const cleanup = (dryRun: boolean) =>
    act(async () => {
      const result = await callApi<CleanupResult>('POST', '/api/dashboard/storage/cleanup', {
        asset_ids: [...selected],
        dry_run: dryRun,
      });
      const skipped =
        result.skipped.length === 0
          ? ''
          : ` ${result.skipped.length} skipped (${result.skipped.map((item) => item.reason).join(', ')}).`;
      if (!dryRun) {
        setSelected(new Set());
        refresh();
      }
      return dryRun
        ? `Would delete ${result.deleted.length} file(s), freeing ${showBytes(result.freed_bytes)}.${skipped}`
        : `Deleted ${result.deleted.length} file(s), freed ${showBytes(result.freed_bytes)}.${skipped}`;
    });

  if (summary.status === 404) {
    return (
      <Page title="Files">
        <Notice kind="info">File storage is not configured on this gateway.</Notice>
      </Page>
    );
  }
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };
  return (
    <Page title="Files">
      <LoadState loading={summary.loading} error={summary.error} />
      {summary.data !== undefined && (
        <dl class="stats">
          <div class="stat">
            <dt>Used</dt>
            <dd>
              {showBytes(summary.data.used_bytes)} of {showBytes(summary.data.quota_bytes)}
            </dd>
          </div>
          <div class="stat">
            <dt>Files</dt>
            <dd>{showNumber(summary.data.file_count)}</dd>
          </div>
          <div class="stat">
            <dt>Kept for</dt>
            <dd>{summary.data.retention_days} days</dd>
          </div>
        </dl>
      )}
      {summary.data !== undefined && (
        <progress
          class="quota"
          max={summary.data.quota_bytes}
          value={summary.data.used_bytes}
          aria-label="Storage used"
        />
      )}
      {outcome !== undefined && <Notice kind={outcome.kind}>{outcome.text}</Notice>}
      <h2>Stored files</h2>
      <LoadState loading={files.loading} error={files.error} />
      {files.data !== undefined && files.data.data.length === 0 && (
        <p class="muted">No stored files.</p>
      )}
      {files.data !== undefined && files.data.data.length > 0 && (
        <TableScroll label="Stored files">
          <table data-testid="files-table">
            <thead>
              <tr>
                <th scope="col">
                  <span class="visually-hidden">Select</span>
                </th>
                <th scope="col">Name</th>
                <th scope="col">Size</th>
                <th scope="col">Type</th>
                <th scope="col">Stored</th>
                <th scope="col">Deleted on</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {files.data.data.map((asset) => (
                <tr key={asset.id} data-asset-id={asset.id}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select ${asset.name}`}
                      checked={selected.has(asset.id)}
                      onChange={(event) =>
                        toggle(asset.id, (event.target as HTMLInputElement).checked)
                      }
                    />
                  </td>
                  <th scope="row">
                    {asset.name}
                    {asset.protected && <span class="badge">protected</span>}
                  </th>
                  <td class="number">{showBytes(asset.size)}</td>
                  <td>{asset.content_type}</td>
                  <td>{showSeconds(asset.created_at)}</td>
                  <td>{showSeconds(asset.delete_at)}</td>
                  <td class="row-actions">
                    <a
                      class="button secondary"
                      href={`/api/dashboard/storage/assets/${encodeURIComponent(asset.id)}/content`}
                      download={asset.name}
                    >
                      Download<span class="visually-hidden"> {asset.name}</span>
                    </a>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete ${asset.name}`}
                      disabled={busy}
                      onClick={() => remove(asset)}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <CursorPager
        cursors={cursors}
        setCursors={setCursors}
        nextCursor={files.data?.has_more === true ? files.data.next_cursor : null}
      />
      <h2>Cleanup</h2>
      <p>
        Delete the selected files at once ({selected.size} selected); protected files are skipped.
        Preview first to see what would go.
      </p>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={busy || selected.size === 0}
          onClick={() => void cleanup(true)}
        >
          Preview cleanup
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy || selected.size === 0}
          onClick={() => void cleanup(false)}
        >
          Delete selected
        </button>
      </div>
      <RetentionPolicy />
    </Page>
  );
}

function RetentionPolicy() {
  const policy = useLoad(
    () => callApi<StoragePolicy>('GET', '/api/dashboard/storage/policy'),
    'policy',
  );
  const [days, setDays] = useState<string | undefined>();
  const [applyToExisting, setApplyToExisting] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: 'error' | 'success'; text: string }>();
  const save = async () => {
    try {
      const saved = await callApi<StoragePolicy>('PATCH', '/api/dashboard/storage/policy', {
        retention_days: Number(days ?? policy.data?.retention_days),
        apply_to_existing: applyToExisting,
      });
      setOutcome({ kind: 'success', text: `Files are kept ${saved.retention_days} days.` });
      policy.reload();
    } catch (error) {
      setOutcome({ kind: 'error', text: describeFailure(error) });
    }
  };
  return (
    <section aria-labelledby="retention-title">
      <h2 id="retention-title">Retention</h2>
      <LoadState loading={policy.loading} error={policy.error} />
      {policy.data !== undefined && (
        <form
          class="filters"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <label>
            Keep files for (days)
            <input
              type="number"
              min={1}
              max={policy.data.max_retention_days}
              required
              value={days ?? String(policy.data.retention_days)}
              onInput={(event) => setDays((event.target as HTMLInputElement).value)}
            />
          </label>
          <label class="checkbox">
            <input
              type="checkbox"
              checked={applyToExisting}
              onChange={(event) => setApplyToExisting((event.target as HTMLInputElement).checked)}
            />
            Also to files already stored
          </label>
          <button type="submit">Save retention</button>
          <small>At most {policy.data.max_retention_days} days.</small>
        </form>
      )}
      {outcome !== undefined && <Notice kind={outcome.kind}>{outcome.text}</Notice>}
    </section>
  );
}
