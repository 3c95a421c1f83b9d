import { useState } from 'preact/hooks';
import { callApi, describeFailure } from '../api-client.ts';
import type { CreatedToken, LimitSet, Page as ListPage, TokenView } from '../api-types.ts';
import { BudgetCell } from '../components/budget-cell.tsx';
import { ModalDialog } from '../components/modal-dialog.tsx';
import { LoadState, Notice, Page, TableScroll } from '../components/page.tsx';
import { SecretDialog } from '../components/secret-dialog.tsx';
import { TokenSettingsForm, type TokenSettings } from '../components/token-settings-form.tsx';
import { showNumber, showTime } from '../format-values.ts';
import { useLoad } from '../use-load.ts';

function tokenStatus(token: TokenView): string {
  if (token.disabledAt !== null) return 'Disabled';
  if (token.expiresAt !== null && token.expiresAt <= Date.now()) return 'Expired';
  return 'Active';
}

function showLimits(limits: LimitSet | null): string {
  if (limits === null) return 'Default';
  const parts = [
    limits.requestsPerMinute !== undefined && `${showNumber(limits.requestsPerMinute)} req/min`,
    limits.tokensPerMinute !== undefined && `${showNumber(limits.tokensPerMinute)} tokens/min`,
    limits.concurrentRequests !== undefined && `${limits.concurrentRequests} at once`,
  ].filter((part) => part !== false);
  return parts.join(', ');
}

/** Without null fields: at creation, absent means "none" already. */
function creationBody(settings: TokenSettings, tokenInterface: string): Record<string, unknown> {
  const body: Record<string, unknown> = { name: settings.name, interface: tokenInterface };
  for (const [name, value] of Object.entries(settings)) {
    if (value !== null && name !== 'name') body[name] = value;
  }
  return body;
}

/** The account's tokens: create (secret shown once), change, rotate, disable, delete. */
export function TokensPage() {
  const tokens = useLoad(
    () => callApi<ListPage<TokenView>>('GET', '/api/dashboard/tokens'),
    'tokens',
  );
  const [secret, setSecret] = useState<{ name: string; value: string } | undefined>();
  const [editing, setEditing] = useState<TokenView | undefined>();
  const [creating, setCreating] = useState(false);
  const [tokenInterface, setTokenInterface] = useState('credits');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: 'error' | 'success'; text: string }>();
  // A new form (empty fields) after each creation.
  const [formRound, setFormRound] = useState(0);

  const act = async (work: () => Promise<string | undefined>) => {
    setBusy(true);
    setOutcome(undefined);
    try {
      const text = await work();
      if (text !== undefined) setOutcome({ kind: 'success', text });
      tokens.reload();
    } catch (error) {
      setOutcome({ kind: 'error', text: describeFailure(error) });
    } finally {
      setBusy(false);
    }
  };

  const create = (settings: TokenSettings) =>
    act(async () => {
      const created = await callApi<CreatedToken>(
        'POST',
        '/api/dashboard/tokens',
        creationBody(settings, tokenInterface),
      );
      setSecret({ name: created.api_key.name, value: created.token });
      setCreating(false);
      setFormRound((round) => round + 1);
      return undefined;
    });
  const update = (token: TokenView, settings: TokenSettings) =>
    act(async () => {
      await callApi('PATCH', `/api/dashboard/tokens/${encodeURIComponent(token.id)}`, settings);
      setEditing(undefined);
      return `Saved “${settings.name}”.`;
    });
  const setDisabled = (token: TokenView, disabled: boolean) =>
    act(async () => {
      await callApi('PATCH', `/api/dashboard/tokens/${encodeURIComponent(token.id)}`, {
        disabled,
      });
      return `${disabled ? 'Disabled' : 'Enabled'} “${token.name}”.`;
    });
  const rotate = (token: TokenView) => {
    if (!confirm(`Rotate “${token.name}”? Its current secret stops working at once.`)) return;
    void act(async () => {
      const rotated = await callApi<CreatedToken>(
        'POST',
        `/api/dashboard/tokens/${encodeURIComponent(token.id)}/rotate`,
      );
      setSecret({ name: token.name, value: rotated.token });
      return undefined;
    });
  };
  const remove = (token: TokenView) => {
    if (!confirm(`Delete “${token.name}”? Calls with it are refused from now on.`)) return;
    void act(async () => {
      await callApi('DELETE', `/api/dashboard/tokens/${encodeURIComponent(token.id)}`);
      return `Deleted “${token.name}”.`;
    });
  };

  return (
    <Page title="Tokens">
      {outcome !== undefined && <Notice kind={outcome.kind}>{outcome.text}</Notice>}
      {!creating && (
        <button type="button" onClick={() => setCreating(true)}>
          New token
        </button>
      )}
      {creating && (
        <section class="card" aria-labelledby="new-token-title">
          <h2 id="new-token-title">New token</h2>
          <div class="field">
            <label for="new-token-interface">Interface</label>
            <select
              id="new-token-interface"
              value={tokenInterface}
              onChange={(event) => setTokenInterface((event.target as HTMLSelectElement).value)}
            >
              <option value="credits">Credits (model APIs, paid from the balance)</option>
              <option value="connected">Connected (the account's own provider keys)</option>
            </select>
          </div>
          <TokenSettingsForm
            key={formRound}
            idPrefix="new-token"
            submitLabel="Create token"
            busy={busy}
            onSubmit={(settings) => void create(settings)}
            onCancel={() => setCreating(false)}
          />
        </section>
      )}
      <LoadState loading={tokens.loading} error={tokens.error} />
      {tokens.data !== undefined && tokens.data.data.length === 0 && (
        <p class="muted">This account has no tokens yet.</p>
      )}
      {tokens.data !== undefined && tokens.data.data.length > 0 && (
        <TableScroll label="Tokens">
          <table data-testid="tokens-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Interface</th>
                <th scope="col">Status</th>
                <th scope="col">Budget</th>
                <th scope="col">Limits</th>
                <th scope="col">Models</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.data.map((token) => (
                <tr key={token.id} data-token-id={token.id}>
                  <th scope="row">
                    {token.name}
                    <br />
                    <code class="muted">{token.displayPrefix}…</code>
                  </th>
                  <td>{token.interface}</td>
                  <td>{tokenStatus(token)}</td>
                  <td class="wrap">
                    <BudgetCell token={token} />
                  </td>
                  <td>{showLimits(token.limits)}</td>
                  <td class="wrap">
                    {token.allowedModels === null ? 'All' : token.allowedModels.join(', ')}
                  </td>
                  <td>{token.expiresAt === null ? 'Never' : showTime(token.expiresAt)}</td>
                  <td class="row-actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Edit ${token.name}`}
                      onClick={() => setEditing(token)}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Rotate ${token.name}`}
                      disabled={busy}
                      onClick={() => rotate(token)}
                    >
                      Rotate
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`${token.disabledAt === null ? 'Disable' : 'Enable'} ${token.name}`}
                      disabled={busy}
                      onClick={() => void setDisabled(token, token.disabledAt === null)}
                    >
                      {token.disabledAt === null ? 'Disable' : 'Enable'}
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete ${token.name}`}
                      disabled={busy}
                      onClick={() => remove(token)}
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
      {editing !== undefined && (
        <ModalDialog title={`Edit “${editing.name}”`} onClose={() => setEditing(undefined)}>
          {outcome?.kind === 'error' && <Notice kind="error">{outcome.text}</Notice>}
          <TokenSettingsForm
            token={editing}
            idPrefix="edit-token"
            submitLabel="Save"
            busy={busy}
            onSubmit={(settings) => void update(editing, settings)}
            onCancel={() => setEditing(undefined)}
          />
        </ModalDialog>
      )}
      {secret !== undefined && (
        <SecretDialog
          name={secret.name}
          secret={secret.value}
          onClose={() => setSecret(undefined)}
        />
      )}
    </Page>
  );
}
