import { Command, CommanderError, Option } from 'commander';
import { permissions, tokenInterfaces, type TokenInterface } from '../auth/permissions.ts';
import { formatCredits, parseCredits } from '../billing/micro-credits.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { OperatorService } from '../operator/operator-service.ts';
import {
  presentAccountSummary,
  presentBalance,
  presentCreatedToken,
  presentCreditChange,
  presentSignInLink,
} from '../operator/present-operator-records.ts';
import type { SignInLink } from '../dashboard/create-sign-in-link.ts';
import { AdminApiError, type AdminApiClient } from './admin-api-client.ts';
import { describeRoutingHealth, type RoutingHealthAnswer } from './describe-routing-health.ts';
import {
  addTokenControlCommands,
  addTokenSettingOptions,
  addUsageCommands,
  readTokenSettings,
} from './usage-commands.ts';
import type { BudgetPeriod } from '../billing/token-budget.ts';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** `30d`, `12h` or an ISO date → epoch ms. */
function parseExpiry(value: string, now: number): number {
  const relative = /^(\d+)([dh])$/.exec(value);
  if (relative) return now + Number(relative[1]) * (relative[2] === 'd' ? 86_400_000 : 3_600_000);
  const absolute = Date.parse(value);
  if (Number.isNaN(absolute))
    throw new ApiError('invalid_request', `--expires: "${value}" is neither 30d/12h nor a date.`);
  return absolute;
}

function parseAmount(value: string): number {
  const amount = parseCredits(value);
  if (amount === undefined)
    throw new ApiError('invalid_request', `"${value}" is not a credit amount (e.g. 10 or 2.5).`);
  return amount;
}

const byteUnits: Record<string, number> = {
  '': 1,
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
};

/** `1048576`, `500MiB` or `10GiB` → bytes (binary units, as storage.quotaBytes is documented). */
function parseByteSize(value: string): number {
  const match = /^(\d+)(B|KiB|MiB|GiB|TiB)?$/.exec(value);
  const bytes = match === null ? Number.NaN : Number(match[1]) * (byteUnits[match[2] ?? ''] ?? 1);
  if (!Number.isSafeInteger(bytes)) {
    throw new ApiError(
      'invalid_request',
      `"${value}" is not a size: give bytes, a size such as 500MiB or 10GiB, or "default".`,
    );
  }
  return bytes;
}

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** The admin API of the running gateway at `url` (the `--url` option), or its default. */
export type AdminApiSource = (url: string | undefined) => AdminApiClient | Promise<AdminApiClient>;

/**
 * The operator commands (docs/operations.md) as a pure function of argv and an OperatorService, so
 * tests run them in-process. Returns the exit code. `--json` prints what the admin API answers for
 * the same command (present-operator-records.ts). Given a function, the service is only opened by a
 * command that needs it, so `--help` and usage errors never touch the store. Commands that act on
 * the running gateway itself (`config reload`, `routing …`) call its admin API through `adminApiSource`.
 */
export async function runCli(
  argv: string[],
  operatorSource: OperatorService | (() => Promise<OperatorService>),
  io: CliIo,
  now = Date.now,
  adminApiSource?: AdminApiSource,
): Promise<number> {
  let opened: OperatorService | undefined;
  const open = async (): Promise<OperatorService> => {
    if (typeof operatorSource !== 'function') return operatorSource;
    opened ??= await operatorSource();
    return opened;
  };
  const program = new Command('switchyard')
    .description('Switchyard operator commands')
    .option('--json', 'print JSON instead of text')
    .option(
      '--url <url>',
      'the running gateway, for commands that call its admin API (default: http://127.0.0.1:<server.port>)',
    )
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const adminApi = async (): Promise<AdminApiClient> => {
    if (adminApiSource === undefined) {
      throw new AdminApiError(
        'this command needs the running gateway, which is not available here',
      );
    }
    return adminApiSource(program.opts<{ url?: string }>().url);
  };
  const print = (value: unknown, text: string) =>
    io.stdout(
      `${program.opts<{ json?: boolean }>().json ? JSON.stringify(value, null, 2) : text}\n`,
    );

  const account = program.command('account').description('accounts');
  account
    .command('create')
    .requiredOption('--name <name>', 'account name')
    .option('--admin', 'administrator account (may hold connected tokens)')
    .action(async (options: { name: string; admin?: boolean }) => {
      const created = await (
        await open()
      ).createAccount({
        name: options.name,
        isAdmin: options.admin ?? false,
      });
      print(created, `created account ${created.id} (${created.name})`);
    });
  account.command('list').action(async () => {
    const accounts = await (await open()).listAccounts();
    print(
      { data: accounts },
      accounts
        .map((item) => `${item.id}  ${item.name}${item.isAdmin ? '  (admin)' : ''}`)
        .join('\n') || 'no accounts',
    );
  });
  account
    .command('show <account-id-or-name>')
    .description('balance, recent ledger entries and recent usage')
    .option('--limit <n>', 'how many recent entries', '20')
    .action(async (accountId: string, options: { limit: string }) => {
      const summary = await (
        await open()
      ).accountSummary(accountId, Math.max(1, Number(options.limit) || 20));
      const lines = [
        `account   ${summary.account.id} (${summary.account.name})`,
        `balance   ${formatCredits(summary.balance.balance)}  held ${formatCredits(summary.balance.held)}  available ${formatCredits(summary.balance.available)}`,
        'ledger:',
        ...summary.entries.map(
          (entry) =>
            `  ${new Date(entry.createdAt).toISOString()}  ${entry.kind.padEnd(10)} ${formatCredits(entry.amount).padStart(16)}  ${entry.reason}`,
        ),
        'usage:',
        ...summary.usage.map(
          (record) =>
            `  ${new Date(record.createdAt).toISOString()}  ${record.requestId}  ${record.model}  in ${record.inputTokens} out ${record.outputTokens}  cost ${formatCredits(record.cost)}  ${record.outcome}`,
        ),
      ];
      print(presentAccountSummary(summary), lines.join('\n'));
    });

  const credits = program
    .command('credits')
    .description('credit grants and adjustments (ledger entries)');
  for (const kind of ['grant', 'adjust'] as const) {
    const command = credits
      .command(`${kind} <account-id> <amount>`)
      .description(kind === 'grant' ? 'add credits' : 'add or take away credits (negative amount)')
      .requiredOption('--reason <text>', 'why, recorded on the ledger entry');
    if (kind === 'adjust') {
      command.option('--allow-negative', 'take the balance below zero if the amount does');
    }
    command.action(
      async (
        accountId: string,
        amount: string,
        options: { reason: string; allowNegative?: boolean },
      ) => {
        const result = await (
          await open()
        ).changeCredits({
          accountId,
          amount: parseAmount(amount),
          reason: options.reason,
          kind: kind === 'grant' ? 'grant' : 'adjustment',
          allowNegative: options.allowNegative === true,
        });
        print(
          presentCreditChange(result),
          `ledger entry ${result.entry.id}; balance ${formatCredits(result.balance.balance)}`,
        );
      },
    );
  }

  const context = {
    open,
    print,
    write: io.stdout,
    parseExpiry: (value: string) => parseExpiry(value, now()),
  };
  const token = program.command('token').description('client tokens');
  addTokenSettingOptions(
    token
      .command('create <account-id-or-name>')
      .requiredOption('--name <name>', 'a label for the token'),
  )
    .option('--permissions <list>', `comma-separated, of: ${permissions.join(', ')} (default: all)`)
    .addOption(
      new Option('--interface <interface>', 'credits or connected')
        .choices([...tokenInterfaces])
        .default('credits'),
    )
    .option('--expires <when>', 'e.g. 30d, 12h or an ISO date')
    .option('--models <list>', 'comma-separated model ids this token may use (default: all)')
    .action(
      async (
        accountId: string,
        options: {
          name: string;
          permissions?: string;
          interface: TokenInterface;
          expires?: string;
          models?: string;
          budget?: string;
          period: BudgetPeriod;
          rpm?: string;
          tpm?: string;
          concurrent?: string;
        },
      ) => {
        const settings = readTokenSettings(options, context);
        const created = await (
          await open()
        ).createToken({
          accountId,
          name: options.name,
          ...(options.permissions !== undefined ? { permissions: list(options.permissions) } : {}),
          interface: options.interface,
          expiresAt: options.expires === undefined ? null : parseExpiry(options.expires, now()),
          allowedModels: options.models === undefined ? null : list(options.models),
          budget: settings.budget,
          limits: settings.limits,
        });
        print(
          presentCreatedToken(created),
          `${created.token}\n(token ${created.apiKey.id}; shown once, store it now — only its hash is kept)`,
        );
      },
    );
  token
    .command('list')
    .option('--account <account-id>')
    .action(async (options: { account?: string }) => {
      const tokens = await (await open()).listTokens(options.account);
      print(
        { data: tokens },
        tokens
          .map(
            (item) =>
              `${item.id}  ${item.displayPrefix}  ${item.accountId}  ${item.name}  ${item.interface}  ${item.disabledAt === null ? 'active' : 'disabled'}${item.expiresAt === null ? '' : `  expires ${new Date(item.expiresAt).toISOString()}`}`,
          )
          .join('\n') || 'no tokens',
      );
    });
  token.command('disable <token-id>').action(async (tokenId: string) => {
    const disabled = await (await open()).disableToken(tokenId);
    print(disabled, `disabled ${disabled.id}`);
  });
  addTokenControlCommands(token, context);
  addUsageCommands(program, context);

  account
    .command('storage-quota <account-id> <size>')
    .description(
      'set the account\'s storage quota: bytes or a size such as 500MiB or 10GiB, or "default" to return it to storage.quotaBytes',
    )
    .action(async (accountId: string, size: string) => {
      const quotaBytes = size === 'default' ? null : parseByteSize(size);
      const { id } = await (await open()).setStorageQuota(accountId, quotaBytes);
      print(
        { account_id: id, quota_bytes: quotaBytes },
        `storage quota of ${id}: ${quotaBytes === null ? 'the default' : `${quotaBytes} bytes`}`,
      );
    });

  program
    .command('bootstrap')
    .description(
      'create an account, grant it credits and print a client token: the first steps in one',
    )
    .requiredOption('--name <name>', 'account name')
    .option('--credits <amount>', 'initial credits', '10')
    .action(async (options: { name: string; credits: string }) => {
      const amount = parseAmount(options.credits);
      const operator = await open();
      const created = await operator.createAccount({ name: options.name });
      if (amount > 0) {
        await operator.changeCredits({
          accountId: created.id,
          amount,
          reason: 'bootstrap grant',
          kind: 'grant',
        });
      }
      const issued = await operator.createToken({
        accountId: created.id,
        name: `${options.name} default`,
      });
      const balance = await operator.accountSummary(created.id, 1);
      // From `npm start` to a signed-in dashboard in one command (docs/operations.md).
      const link = await operator.createSignInLink(created.id);
      print(
        {
          account: created,
          balance: presentBalance(balance.balance),
          ...presentCreatedToken(issued),
          dashboard_sign_in: presentSignInLink(link),
        },
        `account ${created.id} with ${formatCredits(amount)} credits\n${issued.token}\n(shown once, store it now)\n${describeSignInLink(link)}`,
      );
    });

  program
    .command('dashboard')
    .description('the web dashboard')
    .command('link <account-id-or-name>')
    .description(
      'print a one-time link that signs a browser into the dashboard as the account (valid 15 minutes)',
    )
    .action(async (accountRef: string) => {
      const link = await (await open()).createSignInLink(accountRef);
      print(presentSignInLink(link), describeSignInLink(link));
    });

  program
    .command('config')
    .description("the running gateway's configuration")
    .command('reload')
    .description(
      'have the running gateway read its configuration file again (as SIGHUP does); an invalid file is refused and the running configuration stays',
    )
    .action(async () => {
      const answer = (await (
        await adminApi()
      ).call('POST', '/api/admin/config/reload')) as ReloadAnswer;
      print(answer, describeReload(answer));
    });

  const routing = program
    .command('routing')
    .description("the running gateway's upstream targets and their health");
  routing
    .command('health')
    .description(
      "every model's targets in routing order: state, until when, calls in flight, time to first byte, calls and failures",
    )
    .action(async () => {
      const answer = (await (
        await adminApi()
      ).call('GET', '/api/admin/routing')) as RoutingHealthAnswer;
      print(answer, describeRoutingHealth(answer));
    });
  routing
    .command('enable <target-or-key-id>')
    .description(
      'put a target (provider/upstream-model#key-id), or a key id for every target using it, back in rotation at once',
    )
    .action(async (name: string) => {
      const answer = (await (
        await adminApi()
      ).call('POST', `/api/admin/routing/targets/${encodeURIComponent(name)}/enable`)) as {
        enabled: Array<{ id: string; state: string }>;
      };
      print(
        answer,
        answer.enabled.map((target) => `enabled ${target.id} (${target.state})`).join('\n'),
      );
    });
  routing
    .command('reset')
    .description('forget what the gateway learned about every target and every session pin')
    .action(async () => {
      const answer = await (await adminApi()).call('POST', '/api/admin/routing/reset');
      print(answer, 'routing state forgotten: every target is tried afresh');
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ApiError || error instanceof AdminApiError) {
      io.stderr(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function describeSignInLink(link: SignInLink): string {
  return `dashboard sign-in link (one use, until ${new Date(link.expiresAt).toISOString()}):\n${link.url}`;
}

interface ReloadAnswer {
  changed?: Record<string, { added?: string[]; removed?: string[]; changed?: string[] } | string[]>;
  restart_needed?: string[];
  unset_key_variables?: Array<{ provider: string; api_key_env: string }>;
}

/** The reload's answer for a terminal: what changed per section, and what waits for a restart. */
function describeReload(answer: ReloadAnswer): string {
  const lines = ['configuration reloaded'];
  for (const section of ['models', 'providers'] as const) {
    const ids = answer.changed?.[section];
    if (ids === undefined || Array.isArray(ids)) continue;
    const parts = (['added', 'removed', 'changed'] as const)
      .filter((what) => (ids[what]?.length ?? 0) > 0)
      .map((what) => `${what} ${ids[what]?.join(', ')}`);
    lines.push(`${section}: ${parts.length > 0 ? parts.join('; ') : 'unchanged'}`);
  }
  const sections = answer.changed?.sections;
  if (Array.isArray(sections) && sections.length === 0) lines.push('nothing changed');
  for (const { provider, api_key_env: variable } of answer.unset_key_variables ?? []) {
    lines.push(`warning: provider "${provider}" has no key: ${variable} is unset or empty`);
  }
  if ((answer.restart_needed?.length ?? 0) > 0) {
    lines.push(`not applied until a restart: ${answer.restart_needed?.join(', ')}`);
  }
  return lines.join('\n');
}
