import { describe, expect, it } from 'vitest';
import { generateClientToken } from '../auth/client-token.ts';
import { logSerializers } from './log-serializers.ts';

describe('logSerializers', () => {
  const { token } = generateClientToken();

  it('drops query values and token-shaped text from request URLs', () => {
    const logged = logSerializers.req({
      method: 'GET',
      url: `/v1/models/${token}?after_id=secret&${token}=1`,
      id: 'req_1',
    });
    expect(logged).toEqual({
      method: 'GET',
      url: '/v1/models/sy_[redacted]?after_id=…&sy_[redacted]=…',
      requestId: 'req_1',
    });
  });

  it('removes token-shaped text from error messages and stacks, keeping the rest', () => {
    const error = new TypeError(`cannot read "${token}" of the body`);
    const logged = logSerializers.err(error);
    expect(logged.type).toBe('TypeError');
    expect(logged.message).toBe('cannot read "sy_[redacted]" of the body');
    expect(logged.stack).not.toContain(token.slice(3));
    expect(logged.stack).toContain('sy_[redacted]');
  });
});
