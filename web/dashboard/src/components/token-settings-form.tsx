import { useState } from 'preact/hooks';
import type { BudgetPeriod, LimitSet, TokenView } from '../api-types.ts';
import { creditsOfMicro, showCredits } from '../format-values.ts';

/** The settings a token may be given at creation and changed later, as the routes take them. */
export interface TokenSettings {
  name: string;
  allowed_models: string[] | null;
  expires_at: string | null;
  budget: { amount: string; period: BudgetPeriod } | null;
  limits: LimitSet | null;
}

interface Draft {
  name: string;
  models: string;
  expires: string;
  budgetAmount: string;
  budgetPeriod: BudgetPeriod;
  requestsPerMinute: string;
  tokensPerMinute: string;
  concurrentRequests: string;
}

/** `datetime-local` takes the reader's local time without a zone. */
function localInputTime(epochMs: number): string {
  const date = new Date(epochMs - new Date(epochMs).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}

function draftOf(token: TokenView | undefined): Draft {
  const limits = token?.limits ?? {};
  return {
    name: token?.name ?? '',
    models: token?.allowedModels?.join(', ') ?? '',
    expires: token?.expiresAt == null ? '' : localInputTime(token.expiresAt),
    budgetAmount: token?.budget == null ? '' : showCredits(creditsOfMicro(token.budget.amount)),
    budgetPeriod: (token?.budget?.period as BudgetPeriod | undefined) ?? 'monthly',
    requestsPerMinute: String(limits.requestsPerMinute ?? ''),
    tokensPerMinute: String(limits.tokensPerMinute ?? ''),
    concurrentRequests: String(limits.concurrentRequests ?? ''),
  };
}

function settingsOf(draft: Draft): TokenSettings {
  const models = draft.models
    .split(',')
    .map((model) => model.trim())
    .filter((model) => model !== '');
  const limits: LimitSet = {};
  if (draft.requestsPerMinute !== '') limits.requestsPerMinute = Number(draft.requestsPerMinute);
  if (draft.tokensPerMinute !== '') limits.tokensPerMinute = Number(draft.tokensPerMinute);
  if (draft.concurrentRequests !== '') limits.concurrentRequests = Number(draft.concurrentRequests);
  return {
    name: draft.name.trim(),
    allowed_models: models.length === 0 ? null : models,
    expires_at: draft.expires === '' ? null : new Date(draft.expires).toISOString(),
    budget:
      draft.budgetAmount.trim() === ''
        ? null
        : { amount: draft.budgetAmount.trim(), period: draft.budgetPeriod },
    limits: Object.keys(limits).length === 0 ? null : limits,
  };
}

/**
 * The form for a new token and for changing one. An empty field means "none": every model, no
 * expiry, no budget of its own, the gateway's default limits.
 */
export function TokenSettingsForm(props: {
  token?: TokenView;
  idPrefix: string;
  submitLabel: string;
  busy: boolean;
  onSubmit: (settings: TokenSettings) => void;
  onCancel?: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(props.token));
  const field = (name: keyof Draft) => ({
    id: `${props.idPrefix}-${name}`,
    value: draft[name],
    onInput: (event: Event) =>
      setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value }),
  });
  const id = (name: keyof Draft) => `${props.idPrefix}-${name}`;
  return (
    <form
      class="token-form"
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit(settingsOf(draft));
      }}
    >
      <div class="field">
        <label for={id('name')}>Name</label>
        <input type="text" required maxLength={200} autoComplete="off" {...field('name')} />
      </div>
      <div class="field">
        <label for={id('models')}>Allowed models</label>
        <input
          type="text"
          placeholder="every model"
          aria-describedby={`${id('models')}-hint`}
          {...field('models')}
        />
        <small id={`${id('models')}-hint`}>Model ids separated by commas; empty for all.</small>
      </div>
      <div class="field">
        <label for={id('expires')}>Expires</label>
        <input type="datetime-local" {...field('expires')} />
      </div>
      <fieldset>
        <legend>Budget</legend>
        <div class="field">
          <label for={id('budgetAmount')}>Credits per period</label>
          <input
            type="text"
            inputMode="decimal"
            placeholder="none"
            pattern="[0-9]+(\.[0-9]{1,6})?"
            {...field('budgetAmount')}
          />
        </div>
        <div class="field">
          <label for={id('budgetPeriod')}>Period</label>
          <select
            id={id('budgetPeriod')}
            value={draft.budgetPeriod}
            onChange={(event) =>
              setDraft({
                ...draft,
                budgetPeriod: (event.target as HTMLSelectElement).value as BudgetPeriod,
              })
            }
          >
            <option value="daily">Daily</option>
            <option value="weekly">Weekly</option>
            <option value="monthly">Monthly</option>
          </select>
        </div>
      </fieldset>
      <fieldset>
        <legend>Limits (empty: the gateway's defaults)</legend>
        <div class="field">
          <label for={id('requestsPerMinute')}>Requests per minute</label>
          <input type="number" min={1} step={1} {...field('requestsPerMinute')} />
        </div>
        <div class="field">
          <label for={id('tokensPerMinute')}>Tokens per minute</label>
          <input type="number" min={1} step={1} {...field('tokensPerMinute')} />
        </div>
        <div class="field">
          <label for={id('concurrentRequests')}>Concurrent requests</label>
          <input type="number" min={1} step={1} {...field('concurrentRequests')} />
        </div>
      </fieldset>
      <div class="actions">
        <button type="submit" disabled={props.busy}>
          {props.submitLabel}
        </button>
        {props.onCancel !== undefined && (
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
