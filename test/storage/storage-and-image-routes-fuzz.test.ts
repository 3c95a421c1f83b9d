import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';

import type { Store } from '../../src/store/store.ts';
import { startImageBed, type ImageBed } from '../images/image-test-bed.ts';
import { encodePng, jpegBytes, pixelsFor } from '../images/png-bytes.ts';
import {
  openIsolatedPostgresStore,
  openTemporarySqliteStore,
  probePostgres,
} from '../support/isolated-test-stores.ts';
import { useTestBed } from '../support/use-test-bed.ts';

const postgresUnreachable = await probePostgres();
/** Fixed, so a failure found once is found again; bounded, so the suite stays quick. */
const seed = 20_261_127;
const numRuns = 100;

/** Text as hostile clients send it: control characters, NUL, lone surrogates, long runs. */
const anyText = fc.oneof(
  fc.constantFrom('', 'a', 'asset_0', 'imggen_0', '\u0000', 'a\r\nb', '\ud800', '%', '../x'),
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.string({ maxLength: 300 }),
);
const anyJson = fc.jsonValue({ maxDepth: 3 });
/** Mostly the right type, sometimes anything. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 8, arbitrary },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: anyText },
  );

const png = encodePng(2, 2, pixelsFor(2, 2, 5)).toString('base64');
const jpeg = jpegBytes('reference').toString('base64');
/** Mostly valid: one bad value is enough to find where it is refused, or is not. */
const mostly = <T>(valid: T, arbitrary: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(valid) }, { weight: 1, arbitrary });

const inputImage = fc.record({
  name: fc.oneof(fc.constantFrom('ref.png', 'a\r\nb.png', 'nul\u0000.png', 'tab\t'), anyText),
  media_type: mostly('image/png', fc.constantFrom('image/jpeg', 'image/gif', '')),
  data: mostly(png, fc.constantFrom(jpeg, 'data:image/png;base64,AAAA', '', '====')),
});

const imageFields: Record<string, fc.Arbitrary<unknown>> = {
  model: sometimes(fc.constantFrom('picture-sync', 'picture-job', 'picture-job', 'unknown')),
  prompt: sometimes(anyText),
  source: sometimes(fc.constantFrom('credits', 'connected')),
  aspect_ratio: sometimes(fc.constantFrom('auto', '1:1', '3:2', '16:9', '21:9', '0:0', '1:0')),
  resolution: sometimes(fc.constantFrom('1K', '2K', '4K')),
  output_format: sometimes(fc.constantFrom('png', 'jpg', 'jpeg', 'webp')),
  n: sometimes(fc.integer({ min: -1, max: 11 })),
  quality: sometimes(fc.constantFrom('low', 'high', 'medium')),
  include_base64: sometimes(fc.boolean()),
  size: sometimes(fc.constantFrom('auto', '1024x1024', '1536x1024', '1x1', 'x')),
  response_format: sometimes(fc.constantFrom('b64_json', 'url')),
  input_images: fc.oneof(
    { weight: 4, arbitrary: fc.array(inputImage, { minLength: 1, maxLength: 2 }) },
    { weight: 1, arbitrary: fc.array(inputImage, { minLength: 3, maxLength: 9 }) },
    { weight: 1, arbitrary: anyJson },
  ),
  extra: anyJson,
};
/** Reference images are where names and bytes reach the stores: chosen more often. */
const fieldNames = [...Object.keys(imageFields), 'input_images', 'input_images'];

/** Valid requests of each kind, which generated fields then overwrite or extend. */
const baseBodies = [
  { model: 'picture-sync', prompt: 'a fox', source: 'credits' },
  {
    model: 'picture-job',
    prompt: 'from a sketch',
    source: 'credits',
    input_images: [{ name: 'sketch.png', media_type: 'image/png', data: png }],
  },
];

const imageBody = fc.oneof(
  { weight: 1, arbitrary: anyJson.map((value) => JSON.stringify(value)) },
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...baseBodies),
        fc
          .uniqueArray(fc.constantFrom(...fieldNames), { minLength: 1, maxLength: 2 })
          .chain((names) =>
            fc.record(
              Object.fromEntries(
                names.map((name) => [name, imageFields[name] as fc.Arbitrary<unknown>]),
              ),
            ),
          ),
      )
      .map(([base, fields]) => JSON.stringify({ ...base, ...fields })),
  },
);

/** Idempotency keys: mostly fresh and valid, sometimes empty, long or not visible ASCII. */
const idempotencyKey = fc.oneof(
  { weight: 6, arbitrary: fc.uuid() },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom('', ' ', 'a b', 'k'.repeat(300)),
      fc.string({ maxLength: 20 }).map((text) => text.replace(/[^\x20-\x7e]/g, '')),
    ),
  },
);

const query = fc
  .dictionary(
    fc.oneof(
      fc.constantFrom('after', 'limit', 'include_base64', 'source'),
      fc.string({ maxLength: 8 }),
    ),
    fc.oneof(anyText, fc.integer().map(String), fc.constantFrom('true', 'false', '20', '0')),
    { maxKeys: 3 },
  )
  .map((entries) => {
    const search = new URLSearchParams(entries).toString();
    return search === '' ? '' : `?${search}`;
  });

/** Every UTF-8 byte percent-encoded: lone surrogates become U+FFFD, as a client's encoder sends. */
const pathSegment = (id: string) =>
  [...Buffer.from(id, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/** One storage or image request other than a create, with a generated id, query or body. */
const otherRequest = fc.oneof(
  fc.record({ method: fc.constant('GET'), path: fc.constant('/v1/storage'), query }),
  fc.record({ method: fc.constant('GET'), path: fc.constant('/v1/storage/assets'), query }),
  fc.record({ method: fc.constant('GET'), path: fc.constant('/v1/images/models'), query }),
  fc.record({ method: fc.constant('GET'), path: fc.constant('/v1/images/sources'), query }),
  fc.record({
    method: fc.constant('GET'),
    path: anyText.map((id) => `/v1/images/generations/${pathSegment(id)}`),
    query,
  }),
  fc.record({
    method: fc.constantFrom('GET', 'DELETE'),
    path: anyText.map((id) => `/v1/storage/assets/${pathSegment(id)}`),
    query,
  }),
  fc.record({
    method: fc.constant('GET'),
    path: anyText.map((id) => `/v1/storage/assets/${pathSegment(id)}/content`),
    query,
    range: fc.oneof(fc.constantFrom('bytes=0-1', 'bytes=-5', 'bytes=9-1', 'items=0-1'), anyText),
  }),
  fc.record({
    method: fc.constant('PATCH'),
    path: fc.constant('/v1/storage/policy'),
    body: fc
      .record(
        {
          retention_days: sometimes(fc.integer({ min: -1, max: 400 })),
          apply_to_existing: sometimes(fc.boolean()),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body)),
  }),
  fc.record({
    method: fc.constant('POST'),
    path: fc.constant('/v1/storage/cleanup'),
    body: fc
      .record(
        {
          asset_ids: sometimes(fc.array(anyText, { maxLength: 5 })),
          dry_run: sometimes(fc.boolean()),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body)),
  }),
);

type OtherRequest = { method: string; path: string; query?: string; range?: string; body?: string };

/** Whatever a client sends to the storage and image routes, the gateway answers without a 5xx. */
function answersWithout5xx(bed: ImageBed & { token: string }): void {
  const send = (request: InjectOptions): Promise<LightMyRequestResponse> =>
    bed.gateway.app.inject(request);

  it('POST /v1/images/generations never answers 5xx', async () => {
    let served = 0;
    await fc.assert(
      fc.asyncProperty(imageBody, idempotencyKey, async (payload, key) => {
        const response = await send({
          method: 'POST',
          url: '/v1/images/generations',
          headers: {
            authorization: `Bearer ${bed.token}`,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          payload,
        });
        expect(response.statusCode, response.body.slice(0, 500)).toBeLessThan(500);
        if (response.statusCode === 200 || response.statusCode === 202) served += 1;
      }),
      { numRuns, seed },
    );
    // The bodies must reach the jobs and the upstream, not only the edge's refusals.
    expect(served).toBeGreaterThanOrEqual(5);
  });

  it('the storage and the other image routes never answer 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(otherRequest, async (generated: OtherRequest) => {
        const response = await send({
          method: generated.method as 'GET',
          url: `${generated.path}${generated.query ?? ''}`,
          headers: {
            authorization: `Bearer ${bed.token}`,
            ...(generated.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(generated.range === undefined
              ? {}
              : { range: generated.range.replace(/[^\x20-\x7e]/g, '') }),
          },
          ...(generated.body === undefined ? {} : { payload: generated.body }),
        });
        expect(response.statusCode, response.body.slice(0, 500)).toBeLessThan(500);
      }),
      { numRuns: numRuns * 2, seed },
    );
  });

  it('logs no error-level line for any of them', () => {
    const errors = bed.gateway.logs.filter(
      (line) => (JSON.parse(line) as { level: number }).level >= 50,
    );
    expect(errors).toEqual([]);
  });
}

async function startFuzzBed(store: Store) {
  const started = await startImageBed({ store });
  const { token } = await started.gateway.createToken({
    credits: 1_000_000_000,
    permissions: ['image:create'],
  });
  return {
    ...started,
    token,
    async close() {
      await started.close();
      await store.close();
    },
  };
}

describe('generated requests to the storage and image routes on SQLite (fuzz)', () => {
  const bed = useTestBed(async () => startFuzzBed(await openTemporarySqliteStore()));
  answersWithout5xx(bed);
});

describe.skipIf(postgresUnreachable !== undefined)(
  'generated requests to the storage and image routes on PostgreSQL (fuzz)',
  () => {
    const bed = useTestBed(async () => startFuzzBed(await openIsolatedPostgresStore()));
    answersWithout5xx(bed);
  },
);
