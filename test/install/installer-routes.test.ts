import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { makeHome, runProcess } from './installer-test-bed.ts';

const names = ['claude-code.sh', 'codex.sh', 'claude-code.ps1', 'codex.ps1'];

/** The base URL line of a served script, whichever shell it is for. */
function embeddedBaseUrl(script: string): string | undefined {
  return /^(?:base_url|\$SwitchyardBaseUrl)\s*=\s*'([^']*)'$/m.exec(script)?.[1];
}

describe('GET /install/* without server.publicBaseUrl', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  for (const name of names) {
    it(`serves ${name} as text with the base URL taken from the Host header`, async () => {
      const response = await gateway.app.inject({
        url: `/install/${name}`,
        headers: { host: 'gateway.example:8443' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      // Derived from a request header: no shared cache may hand it to another host.
      expect(response.headers['cache-control']).toBe('no-store');
      expect(embeddedBaseUrl(response.body)).toBe('http://gateway.example:8443');
      expect(response.body).not.toContain('@@SWITCHYARD_BASE_URL@@');
    });
  }

  it('answers HEAD without running anything else', async () => {
    const response = await gateway.app.inject({ method: 'HEAD', url: '/install/codex.sh' });
    expect(response.statusCode).toBe(200);
  });

  it('refuses a Host header that could break out of the quoted base URL', async () => {
    for (const host of ["evil.example'; rm -rf ~; '", 'a b', 'gateway.example/path', '$(id)']) {
      const response = await gateway.app.inject({ url: '/install/codex.sh', headers: { host } });
      expect(response.statusCode, host).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'invalid_header' } });
      expect(response.body).not.toContain('rm -rf');
    }
  });

  it('refuses a token in the URL (the token never travels in a URL)', async () => {
    const response = await gateway.app.inject({ url: '/install/claude-code.sh?token=sy_abc' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'credential_in_query' } });
  });

  it('is left out of the client OpenAPI document', async () => {
    const document = (await gateway.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths).filter((route) => route.startsWith('/install'))).toEqual([]);
  });

  it('sends the token only in a header, never in a URL or on a command line', async () => {
    const posix = (await gateway.app.inject({ url: '/install/codex.sh' })).body;
    expect(posix).toContain(`printf 'Authorization: Bearer %s\\n' "$token" |`);
    expect(posix).toContain('curl -sS -H @-');
    expect(posix).not.toMatch(/[?&](?:token|key)=/);
    const powershell = (await gateway.app.inject({ url: '/install/codex.ps1' })).body;
    expect(powershell).toContain(
      "Read-Host -Prompt 'Switchyard token (input hidden)' -AsSecureString",
    );
    expect(powershell).toContain('Authorization = "Bearer $Token"');
    expect(powershell).toContain('-Uri "$SwitchyardBaseUrl/v1/models"');
    expect(powershell).not.toMatch(/[?&](?:token|key)=/);
    // irm | iex: everything runs in a child scope of the caller's session.
    expect(powershell.startsWith('& {\n')).toBe(true);
    expect(powershell.trimEnd().endsWith('}')).toBe(true);
  });

  it('serves POSIX scripts that dash and bash parse', async () => {
    const { home, remove } = await makeHome();
    try {
      for (const name of ['claude-code.sh', 'codex.sh']) {
        const file = path.join(home, name);
        await writeFile(file, (await gateway.app.inject({ url: `/install/${name}` })).body);
        for (const shell of ['/bin/sh', 'bash']) {
          const run = await runProcess(shell, ['-n', file], {
            env: { PATH: process.env.PATH },
            cwd: home,
            timeoutMs: 10_000,
          });
          expect(run.stderr, `${shell} ${name}`).toBe('');
          expect(run.code).toBe(0);
        }
      }
    } finally {
      await remove();
    }
  });
});

describe('GET /install/* with server.publicBaseUrl', () => {
  it('embeds the configured URL without its trailing slash, whatever the Host', async () => {
    const gateway = await startTestGateway({
      server: { publicBaseUrl: 'https://switchyard.example/gateway/' },
    });
    try {
      for (const name of names) {
        const response = await gateway.app.inject({
          url: `/install/${name}`,
          headers: { host: 'internal-name:8080' },
        });
        expect(response.statusCode).toBe(200);
        expect(embeddedBaseUrl(response.body)).toBe('https://switchyard.example/gateway');
        expect(response.headers['cache-control']).toBe('public, max-age=300');
      }
    } finally {
      await gateway.close();
    }
  });

  it('stops start-up on a URL that cannot be quoted safely', async () => {
    await expect(
      startTestGateway({ server: { publicBaseUrl: "https://switchyard.example/a'b" } }),
    ).rejects.toThrow(/server\.publicBaseUrl cannot be written into installer scripts/);
  });

  it('stops start-up on a URL with a query or credentials', async () => {
    await expect(
      startTestGateway({ server: { publicBaseUrl: 'https://user:secret@switchyard.example' } }),
    ).rejects.toThrow(/server\.publicBaseUrl: not an http\(s\) URL/);
    await expect(
      startTestGateway({ server: { publicBaseUrl: 'https://switchyard.example/?a=1' } }),
    ).rejects.toThrow(/server\.publicBaseUrl: not an http\(s\) URL/);
  });
});
