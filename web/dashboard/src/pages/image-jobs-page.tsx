import { callApi, queryString } from '../api-client.ts';
import type { ImageJob, Page as ListPage } from '../api-types.ts';
import { CursorPager, useCursorStack } from '../components/cursor-pager.tsx';
import { LoadState, Notice, Page, TableScroll } from '../components/page.tsx';
import { showTime } from '../format-values.ts';
import { useLoad } from '../use-load.ts';

function jobError(error: ImageJob['error']): string {
  if (error === null) return '';
  return typeof error === 'string' ? error : (error.message ?? error.type ?? '');
}

/** Image generation jobs of the account, newest first. */
export function ImageJobsPage() {
  const { cursor: after, cursors, setCursors } = useCursorStack();
  const jobs = useLoad(
    () =>
      callApi<ListPage<ImageJob>>(
        'GET',
        `/api/dashboard/image-jobs${queryString({ limit: 50, after })}`,
      ),
    `jobs ${after}`,
  );
  if (jobs.status === 404) {
    return (
      <Page title="Image jobs">
        <Notice kind="info">Image generation is not configured on this gateway.</Notice>
      </Page>
    );
  }
  return (
    <Page title="Image jobs">
      <button type="button" class="secondary" onClick={jobs.reload}>
        Refresh
      </button>
      <LoadState loading={jobs.loading} error={jobs.error} />
      {jobs.data !== undefined && jobs.data.data.length === 0 && (
        <p class="muted">No image jobs.</p>
      )}
      {jobs.data !== undefined && jobs.data.data.length > 0 && (
        <TableScroll label="Image jobs">
          <table>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Status</th>
                <th scope="col">Model</th>
                <th scope="col">Created</th>
                <th scope="col">Finished</th>
                <th scope="col">Results</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.data.map((job) => (
                <tr key={job.id}>
                  <th scope="row">
                    <code>{job.id}</code>
                  </th>
                  <td>
                    <span class={`badge status-${job.status}`}>{job.status}</span>
                  </td>
                  <td>{job.model}</td>
                  <td>{showTime(job.created_at)}</td>
                  <td>{showTime(job.finished_at)}</td>
                  <td>
                    {job.result_asset_ids.map((id) => (
                      <a
                        key={id}
                        href={`/api/dashboard/storage/assets/${encodeURIComponent(id)}/content`}
                        download
                      >
                        {id}
                      </a>
                    ))}
                  </td>
                  <td>{jobError(job.error)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <CursorPager
        cursors={cursors}
        setCursors={setCursors}
        nextCursor={jobs.data?.has_more === true ? jobs.data.next_cursor : null}
      />
    </Page>
  );
}
