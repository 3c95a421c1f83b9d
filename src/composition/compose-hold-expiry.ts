import type { CreditLedger } from '../billing/credit-ledger.ts';
import type { SettlementOutbox } from '../billing/settlement-outbox.ts';
import type { GatewayFeature } from '../features/gateway-feature.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';

/**
 * docs/architecture.md: holds that outlive a crash or a lost settle expire and are released; the
 * settlements still waiting for the store are tried again on the same beat.
 */
export function composeHoldExpiry(
  parts: GatewayParts,
  ledger: CreditLedger,
  settlements: SettlementOutbox,
): GatewayFeature {
  let sweeper: NodeJS.Timeout | undefined;
  return {
    routes: [],
    start() {
      sweeper = setInterval(() => {
        ledger.releaseExpiredHolds(parts.now()).catch((error: unknown) => {
          parts.logError(error, 'releasing expired holds failed');
        });
        void settlements.flush();
      }, 60_000);
      sweeper.unref();
    },
    async stop() {
      clearInterval(sweeper);
    },
  };
}
