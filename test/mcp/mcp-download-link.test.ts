import { describe, expect, it } from 'vitest';
import { startImageBed } from '../images/image-test-bed.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { postMcp, rpc, storeImagePastInlineSize } from './mcp-test-bed.ts';

describe('download_image without server.publicBaseUrl (docs/decisions/0121)', () => {
  const bed = useTestBed(() => startImageBed());

  it('answers an image past the inline size with a tool error, never a link built from Host', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits: 1_000_000 });
    const { stored } = await storeImagePastInlineSize(bed.gateway, accountId);

    const response = await postMcp(
      bed.gateway,
      {
        authorization: `Bearer ${token}`,
        host: 'evil.example',
        'mcp-protocol-version': '2025-06-18',
      },
      rpc('tools/call', { name: 'download_image', arguments: { asset_id: stored.id } }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain('evil.example');
    const { result } = response.json() as {
      result: { isError?: boolean; content: Array<{ type: string; text?: string }> };
    };
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.any(String) }]);
    const text = result.content[0]?.text ?? '';
    expect(text).toContain('server.publicBaseUrl');
    expect(text).toContain(`GET /v1/storage/assets/${stored.id}/content`);
    expect(text).toContain('HTTP 400');
  });
});
