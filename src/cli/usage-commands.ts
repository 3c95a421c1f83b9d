import type { Command } from 'commander';
import { Option } from 'commander';
import type { ApiKeyChanges } from '../auth/api-key-store.ts';
import { formatCredits, parseCredits } from '../billing/micro-credits.ts';
import { budgetPeriods, type BudgetPeriod } from '../billing/token-budget.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { LimitSet } from '../config/config-schema.ts';
import type { OperatorService } from '../operator/operator-service.ts';
import { presentCreatedToken } from '../operator/present-operator-records.ts';
import {
  presentUsageReport,
  presentUsageRequest,
  renderUsageCsv,
  type UsageReport,
} from '../operator/usage-reports.ts';

/** What the usage and token-control commands need of runCli. */
export interface CommandContext {
  open(): Promise<OperatorService>;
  /** Prints `value` as JSON under `--json`, `text` otherwise. */
  print(value: unknown, text: string): void;
  /** Prints text as it is (CSV). */
  write(text: string): void;
  /** `30d`, `12h` or an ISO date → epoch ms. */
  parseExpiry(value: string): number;
}

interface UsageOptions {
  account?: string;
  token?: string;
  model?: string;
  from?: string;
  to?: string;
}

function usageFilterOptions(command: Command): Command {
  return command
    .option('--account <id-or-name>', 'one account (default: every account)')
    .option('--token <token-id>', "one token's calls")
    .option('--model <model>', "one model's calls")
    .option('--from <date>', 'ISO date or date-time, inclusive (default: 30 days before --to)')
    .option('--to <date>', 'ISO date or date-time, exclusive (default: now)');
}

function describeReport(report: UsageReport): string {
  const label = (group: UsageReport['totals']) =>
    report.groupBy
      .map((key) => {
        switch (key) {
          case 'token':
            return group.apiKeyId;
          case 'model':
            return group.model;
          case 'deployment':
            return group.deployment ?? '(none)';
          case 'day':
            return new Date(group.period ?? 0).toISOString().slice(0, 10);
          case 'hour':
            return new Date(group.period ?? 0).toISOString().slice(0, 13) + 'h';
          default: {
            const unhandled: never = key;
            return String(unhandled);
          }
        }
      })
      .join('  ');
  const figures = (group: UsageReport['totals']) =>
    `requests ${group.requests}  in ${group.inputTokens} (cached ${group.cachedInputTokens})  out ${group.outputTokens}  cost ${formatCredits(group.cost)}`;
  return [
    `${new Date(report.from).toISOString()} – ${new Date(report.to).toISOString()}`,
    ...report.groups.map((group) => `${label(group)}  ${figures(group)}`),
    `total  ${figures(report.totals)}`,
  ].join('\n');
}

/** `usage report` and `usage requests` (docs/operations.md, "Usage reports"). */
export function addUsageCommands(program: Command, context: CommandContext): void {
  const usage = program.command('usage').description('spend and tokens, and the request log');
  usageFilterOptions(
    usage
      .command('report')
      .description('totals over a period, grouped by token, model, deployment, day or hour'),
  )
    .option('--group-by <keys>', 'comma-separated: token, model, deployment, day, hour')
    .option('--csv', 'print CSV (one row per group)')
    .action(async (options: UsageOptions & { groupBy?: string; csv?: boolean }) => {
      const report = await (
        await context.open()
      ).reportUsage({ ...options, group_by: options.groupBy });
      if (options.csv === true) context.write(renderUsageCsv(report));
      else context.print(presentUsageReport(report), describeReport(report));
    });
  usageFilterOptions(
    usage.command('requests').description('the request log, newest first, a page at a time'),
  )
    .option('--status <code>', 'only calls answered with this HTTP status')
    .option('--limit <n>', 'records per page (1 to 500)', '50')
    .option('--cursor <cursor>', 'continue where the previous page ended')
    .action(async (options: UsageOptions & { status?: string; limit: string; cursor?: string }) => {
      const page = await (await context.open()).listRequests(options);
      const lines = page.records.map(
        (record) =>
          `${new Date(record.createdAt).toISOString()}  ${record.requestId}  ${record.surface}  ${record.model}  ${record.status}  in ${record.inputTokens} out ${record.outputTokens}  cost ${formatCredits(record.cost)}  ${record.latencyMs}ms${record.firstTokenMs === null ? '' : ` (first byte ${record.firstTokenMs}ms)`}`,
      );
      if (page.nextCursor !== null) lines.push(`next page: --cursor ${page.nextCursor}`);
      context.print(
        { data: page.records.map(presentUsageRequest), next_cursor: page.nextCursor },
        lines.join('\n') || 'no requests',
      );
    });
}

function positiveInteger(value: string, option: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) {
    throw new ApiError('invalid_request', `${option}: "${value}" is not a positive integer.`);
  }
  return number;
}

interface TokenUpdateOptions {
  name?: string;
  models?: string;
  allModels?: boolean;
  expires?: string;
  noExpiry?: boolean;
  budget?: string;
  period: BudgetPeriod;
  noBudget?: boolean;
  rpm?: string;
  tpm?: string;
  concurrent?: string;
  defaultLimits?: boolean;
}

/** The changes a `token update` asks for; conflicting options are refused. */
function readTokenUpdate(options: TokenUpdateOptions, context: CommandContext): ApiKeyChanges {
  const changes: ApiKeyChanges = {};
  const both = (left: unknown, right: unknown, names: string) => {
    if (left !== undefined && right !== undefined) {
      throw new ApiError('invalid_request', `${names}: give one or the other.`);
    }
  };
  both(options.models, options.allModels, '--models and --all-models');
  both(options.expires, options.noExpiry, '--expires and --no-expiry');
  const limitOptions = [options.rpm, options.tpm, options.concurrent];
  if (options.defaultLimits === true && limitOptions.some((value) => value !== undefined)) {
    throw new ApiError('invalid_request', '--default-limits and a limit: give one or the other.');
  }
  if (options.name !== undefined) changes.name = options.name;
  if (options.models !== undefined) {
    changes.allowedModels = options.models.split(',').map((model) => model.trim());
  }
  if (options.allModels === true) changes.allowedModels = null;
  if (options.expires !== undefined) changes.expiresAt = context.parseExpiry(options.expires);
  if (options.noExpiry === true) changes.expiresAt = null;
  if (options.budget !== undefined) {
    const amount = parseCredits(options.budget);
    if (amount === undefined || amount <= 0) {
      throw new ApiError(
        'invalid_request',
        `--budget: "${options.budget}" is not a positive amount.`,
      );
    }
    changes.budget = { amount, period: options.period };
  }
  if (options.noBudget === true) changes.budget = null;
  if (limitOptions.some((value) => value !== undefined)) {
    const limits: LimitSet = {};
    if (options.rpm !== undefined) limits.requestsPerMinute = positiveInteger(options.rpm, '--rpm');
    if (options.tpm !== undefined) limits.tokensPerMinute = positiveInteger(options.tpm, '--tpm');
    if (options.concurrent !== undefined) {
      limits.concurrentRequests = positiveInteger(options.concurrent, '--concurrent');
    }
    changes.limits = limits;
  }
  if (options.defaultLimits === true) changes.limits = null;
  return changes;
}

/** The budget and rate-limit options `token create` shares with `token update`. */
export function addTokenSettingOptions(command: Command): Command {
  return command
    .option('--budget <credits>', 'the most the token may be charged per --period')
    .addOption(
      new Option('--period <period>', 'when the budget starts again (UTC)')
        .choices([...budgetPeriods])
        .default('monthly'),
    )
    .option('--rpm <n>', 'requests per minute, in place of limits.token')
    .option('--tpm <n>', 'tokens per minute, in place of limits.token')
    .option('--concurrent <n>', 'requests at once, in place of limits.token');
}

/** A new token's budget and limits from those options; null where none is given. */
export function readTokenSettings(
  options: Pick<TokenUpdateOptions, 'budget' | 'period' | 'rpm' | 'tpm' | 'concurrent'>,
  context: CommandContext,
): { budget: ApiKeyChanges['budget'] | null; limits: ApiKeyChanges['limits'] | null } {
  const changes = readTokenUpdate(options, context);
  return { budget: changes.budget ?? null, limits: changes.limits ?? null };
}

/**
 * `token update`, `token rotate` and `token delete` on the `token` command. The running gateway's
 * authentication cache forgets a changed token within its lifetime (10 s); the admin API's
 * equivalents take effect at once in the gateway that answers them.
 */
export function addTokenControlCommands(token: Command, context: CommandContext): void {
  addTokenSettingOptions(
    token
      .command('update <token-id>')
      .description('rename a token or change its models, expiry, budget or rate limits')
      .option('--name <name>', 'a new label')
      .option('--models <list>', 'comma-separated model ids this token may use')
      .option('--all-models', 'let the token use every model')
      .option('--expires <when>', 'e.g. 30d, 12h or an ISO date')
      .option('--no-expiry', 'never expire'),
  )
    .option('--no-budget', 'remove the budget')
    .option('--default-limits', 'return to the configured limits.token')
    .action(async (tokenId: string, options: TokenUpdateOptions) => {
      // commander's --no-x sets x: false on the option without its prefix.
      const raw = options as unknown as { expiry?: boolean; budget?: string | false };
      const normalized: TokenUpdateOptions = {
        ...options,
        ...(raw.expiry === false ? { noExpiry: true } : {}),
        ...(raw.budget === false ? { noBudget: true, budget: undefined } : {}),
      };
      const updated = await (
        await context.open()
      ).updateToken(tokenId, readTokenUpdate(normalized, context));
      context.print(updated, `updated ${updated.id} (${updated.name})`);
    });
  token
    .command('rotate <token-id>')
    .description('a new secret with the same settings; the old secret stops working')
    .action(async (tokenId: string) => {
      const rotated = await (await context.open()).rotateToken(tokenId);
      context.print(
        presentCreatedToken(rotated),
        `${rotated.token}\n(token ${rotated.apiKey.id}; shown once, store it now — the old secret no longer works)`,
      );
    });
  token
    .command('delete <token-id>')
    .description('remove a token for good; its usage stays in the reports')
    .action(async (tokenId: string) => {
      const deleted = await (await context.open()).deleteToken(tokenId);
      context.print({ deleted: true, api_key: deleted }, `deleted ${deleted.id}`);
    });
}
