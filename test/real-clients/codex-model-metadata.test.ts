import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import {
  clientPosts,
  realClientModels,
  useRealClientBed,
  type RealClientBed,
} from './real-client-bed.ts';
import { describeWithClient } from './require-client-binary.ts';
import { describeRun } from './run-client-process.ts';
import { codexLauncher, runCodex, type CodexOptions } from './run-codex.ts';

type Json = Record<string, unknown>;

const model = realClientModels.responses;
const missingMetadata = `Model metadata for \`${model}\` not found`;

/** The text of the developer messages of Codex's first request, in order. */
function developerTexts(bed: RealClientBed): string[] {
  const body = (clientPosts(bed.exchanges)[0]?.body ?? {}) as Json;
  return ((body.input ?? []) as Json[])
    .filter((item) => item.role === 'developer')
    .flatMap((item) => (item.content as Json[]).map((part) => String(part.text)));
}

async function say(bed: RealClientBed, extraConfig: CodexOptions['extraConfig']) {
  bed.fake.enqueue({ output: [{ text: 'Hello from the gateway.' }] });
  const run = await runCodex({
    origin: bed.origin,
    token: bed.token,
    model,
    prompt: 'Say hello.',
    workspace: await bed.newWorkspace(),
    extraConfig,
  });
  expect(run.code, describeRun(run)).toBe(0);
  expect(run.lastMessage).toContain('Hello from the gateway.');
  return run;
}

/**
 * docs/decisions/0036: what Codex 0.169 offers a custom provider for model metadata, checked
 * against the installed binary so that a Codex upgrade that changes it fails here and is noticed.
 */
describeWithClient('Codex model metadata for a gateway model', codexLauncher, () => {
  let bed: RealClientBed;
  useRealClientBed((started) => (bed = started));

  it(
    'asks a provider’s model_catalog_url with its bearer header, and without an entry warns',
    { timeout: 120_000 },
    async () => {
      const run = await say(bed, {
        root: ['model_context_window = 200000'],
        provider: [`model_catalog_url = ${JSON.stringify(`${bed.origin}/v1/models`)}`],
      });
      const catalogRequests = bed.exchanges.filter((exchange) => exchange.method === 'GET');
      expect(catalogRequests.length).toBeGreaterThan(0);
      for (const exchange of catalogRequests) {
        expect(exchange.url).toBe('/v1/models?client_version=0.169.0');
        expect(exchange.headers.authorization).toBe(`Bearer ${bed.token}`);
      }
      // The gateway's model list is not Codex's catalog shape, so Codex falls back.
      expect(run.stderr).toContain('failed to decode models response');
      expect(run.stderr).toContain(missingMetadata);
      // With fallback metadata, Codex sends its own agent prompt as the first developer message.
      expect(developerTexts(bed)[0]).toMatch(/^You are a coding agent running in the Codex CLI/);
    },
  );

  it(
    'takes a model_catalog_json entry only with instructions, which replace its own prompt',
    { timeout: 120_000 },
    async () => {
      const models = await bed.gateway.app.inject({
        method: 'GET',
        url: '/v1/models',
        headers: { authorization: `Bearer ${bed.token}` },
      });
      const listed = (models.json<{ data: Json[] }>().data ?? []).find(
        (entry) => entry.id === model,
      );
      expect(listed?.context_window).toBe(200_000);
      // The fields Codex 0.169 refuses to parse an entry without, filled from the model list.
      const entry = {
        slug: model,
        display_name: model,
        context_window: listed?.context_window,
        supported_reasoning_levels: [],
        shell_type: 'shell_command',
        visibility: 'list',
        supported_in_api: true,
        priority: 1,
        support_verbosity: false,
        truncation_policy: { mode: 'tokens', limit: 10_000 },
        experimental_supported_tools: [],
        base_instructions: '',
      };
      const workspace = await bed.newWorkspace();
      const catalog = path.join(workspace.home, 'switchyard-models.json');
      const { base_instructions: _instructions, ...withoutInstructions } = entry;
      await writeFile(catalog, JSON.stringify({ models: [withoutInstructions] }));
      const refused = await runCodex({
        origin: bed.origin,
        token: bed.token,
        model,
        prompt: 'Say hello.',
        workspace,
        extraConfig: { root: [`model_catalog_json = ${JSON.stringify(catalog)}`] },
      });
      expect(refused.code, describeRun(refused)).not.toBe(0);
      expect(refused.stderr).toContain(
        'is missing both `base_instructions` and `model_messages.instructions_template`',
      );

      await writeFile(catalog, JSON.stringify({ models: [entry] }));
      bed.reset();
      const run = await say(bed, { root: [`model_catalog_json = ${JSON.stringify(catalog)}`] });
      expect(run.stderr).not.toContain(missingMetadata);
      // The price: the entry's (empty) instructions stand in for Codex's agent prompt.
      expect(developerTexts(bed).join('\n')).not.toContain('You are a coding agent');
    },
  );
});
