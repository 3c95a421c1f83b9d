import { randomUUID } from 'node:crypto';
import type { Permission } from '../../src/auth/permissions.ts';
import type { OperatorService } from '../../src/operator/operator-service.ts';

/**
 * A new account granted `credits` micro-credits and a client token of it, made through the
 * operator's own service as an operator would: the start of every test that spends money from
 * outside the gateway's process. Every permission unless `permissions` narrows them.
 */
export async function grantFundedToken(
  operator: OperatorService,
  options: { name: string; credits: number; permissions?: Permission[] },
): Promise<{ accountId: string; token: string }> {
  // Account names are unique; callers may ask for several accounts of one name.
  const account = await operator.createAccount({
    name: `${options.name} ${randomUUID()}`,
    isAdmin: false,
  });
  await operator.changeCredits({
    accountId: account.id,
    amount: options.credits,
    reason: `${options.name} grant`,
    kind: 'grant',
  });
  const { token } = await operator.createToken({
    accountId: account.id,
    name: options.name,
    ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
    expiresAt: null,
    allowedModels: null,
  });
  return { accountId: account.id, token };
}
