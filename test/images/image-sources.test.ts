import { describe, expect, it } from 'vitest';

import { startTestGateway } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { createImage, getWithToken } from './image-test-bed.ts';

const credits = 10_000_000;

describe('GET /v1/images/sources without an images section (docs/images.md)', () => {
  const bed = useTestBed(() => startTestGateway({}));

  it('answers that credits are not available because image generation is not configured', async () => {
    const { token } = await bed.createToken({ credits, permissions: ['image:create'] });
    const response = await getWithToken(bed, token, '/v1/images/sources');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      object: 'list',
      data: [
        {
          source: 'credits',
          available: false,
          reason: expect.stringMatching(/not configured/),
        },
        { source: 'connected', available: false, reason: expect.any(String) },
      ],
    });
  });

  it('still needs image:create, and the other image routes do not exist', async () => {
    const { token: denied } = await bed.createToken({ credits, permissions: ['model:read'] });
    const refused = await getWithToken(bed, denied, '/v1/images/sources');
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.message).toContain('image:create');

    const { token } = await bed.createToken({ credits, permissions: ['image:create'] });
    expect((await getWithToken(bed, token, '/v1/images/models')).statusCode).toBe(404);
    expect((await getWithToken(bed, token, '/v1/images/generations/imggen_x')).statusCode).toBe(
      404,
    );
    const create = await createImage(bed, token, 'k-1', {
      model: 'picture-sync',
      prompt: 'p',
      source: 'credits',
    });
    expect(create.statusCode).toBe(404);
  });
});
