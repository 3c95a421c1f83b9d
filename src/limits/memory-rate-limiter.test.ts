import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import { describeRateLimiterContract } from './rate-limiter.contract.ts';

describeRateLimiterContract('MemoryRateLimiter', async () => ({
  limiter: new MemoryRateLimiter(),
  cleanup: async () => {},
}));
