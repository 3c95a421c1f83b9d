import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { buildWav, mp3Bytes } from './build-wav.ts';
import { buildForm, credentials, startTranscriptionBed } from './transcription-test-bed.ts';

const boundary = 'fuzz-boundary';

/** A part as a client might send it: mostly the contract's names, sometimes anything. */
const part = fc.record({
  name: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom('file', 'model', 'language', 'prompt', 'response_format'),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  ),
  value: fc.oneof(
    fc.constantFrom(
      'whisper-test',
      'json',
      'text',
      '',
      buildWav({ seconds: 1 }).toString('latin1'),
      mp3Bytes().toString('latin1'),
    ),
    fc.string({ maxLength: 40 }),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  ),
  filename: fc.option(fc.constantFrom('a.wav', '', 'x"y.wav', '../../etc/passwd'), {
    nil: undefined,
  }),
  contentType: fc.option(fc.constantFrom('audio/wav', 'text/plain', ''), { nil: undefined }),
});

/** A well-formed body of those parts, then maybe cut, spliced with noise, or its framing broken. */
const body = fc
  .tuple(
    fc.array(part, { minLength: 0, maxLength: 5 }),
    fc.constantFrom('none', 'cut', 'noise', 'bad-header', 'no-final'),
    fc.nat(),
    fc.uint8Array({ minLength: 1, maxLength: 64 }),
  )
  .map(([parts, damage, position, noise]) => {
    const form = buildForm(
      parts.map((each) => ({ ...each, value: Buffer.from(each.value, 'latin1') })),
    ).body;
    // buildForm picks its own boundary: use one the headers can name.
    const own = form.subarray(2, form.indexOf('\r\n')).toString('latin1');
    let bytes = Buffer.from(form.toString('latin1').replaceAll(own, boundary), 'latin1');
    const at = bytes.length === 0 ? 0 : position % bytes.length;
    if (damage === 'cut') bytes = bytes.subarray(0, at);
    if (damage === 'noise')
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(noise), bytes.subarray(at)]);
    if (damage === 'bad-header')
      bytes = Buffer.from(
        bytes.toString('latin1').replace('Content-Disposition:', 'Content-Dispo\r\n'),
        'latin1',
      );
    if (damage === 'no-final')
      bytes = Buffer.from(bytes.toString('latin1').replace(`--${boundary}--`, ''), 'latin1');
    return bytes;
  });

const contentType = fc.constantFrom(
  `multipart/form-data; boundary=${boundary}`,
  `multipart/form-data; boundary="${boundary}"`,
  `Multipart/Form-Data;boundary=${boundary}; charset=utf-8`,
  'multipart/form-data; boundary=something-else',
  'multipart/form-data; boundary=',
  'multipart/mixed; boundary=x',
);

/** Whatever multipart body a client sends, the transcription route answers it without a 5xx. */
describe('generated multipart bodies on POST /v1/audio/transcriptions (fuzz)', () => {
  const bed = useTestBed(() => startTranscriptionBed());

  it('never answers 5xx, and always in the error shape', async () => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000_000 });
    let call = 0;
    await fc.assert(
      fc.asyncProperty(body, contentType, async (payload, type) => {
        call += 1;
        const response = await bed.gateway.app.inject({
          method: 'POST',
          url: '/v1/audio/transcriptions',
          headers: { ...credentials(token, `fuzz-${call}`), 'content-type': type },
          payload,
        });
        expect(response.statusCode, response.body.slice(0, 300)).toBeLessThan(500);
        if (response.statusCode !== 200) {
          expect(response.json().error).toMatchObject({
            type: expect.any(String),
            code: expect.any(String),
            message: expect.any(String),
          });
        }
      }),
      { numRuns: 150, seed: 20261127 },
    );
    expect(await bed.spoolFiles()).toEqual([]);
  });
});
