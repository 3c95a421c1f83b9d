import { connect } from 'node:net';

import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { buildWav } from './build-wav.ts';
import {
  buildForm,
  credentials,
  startTranscriptionBed,
  transcriptionForm,
} from './transcription-test-bed.ts';

/** A body that is not the form its headers announce is the client's mistake: 4xx, never 500. */
describe('malformed transcription bodies', () => {
  const bed = useTestBed(() => startTranscriptionBed());
  const post = async (key: string, contentType: string | undefined, payload: Buffer | string) => {
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    return bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/audio/transcriptions',
      headers: {
        ...credentials(token, key),
        ...(contentType === undefined ? {} : { 'content-type': contentType }),
      },
      payload,
    });
  };
  const form = () => buildForm(transcriptionForm(buildWav({ seconds: 1 })));

  it('answers 400 naming the header for multipart/form-data without a boundary', async () => {
    const response = await post('no-boundary', 'multipart/form-data', form().body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'invalid_header',
      param: 'content-type',
      type: 'invalid_request_error',
    });
    expect(response.json().error.message).toContain('boundary');
  });

  it('answers 400 for a body whose boundary is not the announced one', async () => {
    const response = await post(
      'wrong-boundary',
      'multipart/form-data; boundary=other',
      form().body,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
    expect(response.json().error.message).toContain('multipart body is malformed');
    expect(await bed.spoolFiles()).toEqual([]);
  });

  it('answers 400 for a body cut short, inside the file or inside the part headers', async () => {
    const { body, contentType } = form();
    for (const [index, cut] of [body.length - 100, 60, 10].entries()) {
      const response = await post(`truncated-${index}`, contentType, body.subarray(0, cut));
      expect(response.statusCode, `cut at ${cut}`).toBe(400);
      expect(response.json().error.type).toBe('invalid_request_error');
    }
    expect(await bed.spoolFiles()).toEqual([]);
    expect(bed.upstreams[0]?.requests).toHaveLength(0);
  });

  it('never logs a malformed body as a failure of the gateway', async () => {
    await post('logged', 'multipart/form-data; boundary=other', form().body);
    const failures = bed.gateway.logs.filter((line) => JSON.parse(line).level >= 50);
    expect(failures).toEqual([]);
  });

  it('answers 415 from the headers, without reading a body that is not multipart', async () => {
    await bed.gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const address = bed.gateway.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    for (const contentType of ['application/json', 'text/plain', 'application/octet-stream']) {
      const socket = connect(address.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      // 20 MB announced, 20 bytes sent: only an answer from the headers can arrive.
      socket.write(
        'POST /v1/audio/transcriptions HTTP/1.1\r\nhost: 127.0.0.1\r\n' +
          `authorization: Bearer ${token}\r\nidempotency-key: k-${contentType.length}\r\n` +
          `content-type: ${contentType}\r\ncontent-length: 20000000\r\n\r\n{"model":"whisper"`,
      );
      await new Promise((resolve) => socket.once('close', resolve));
      expect(answer, contentType).toMatch(/^HTTP\/1\.1 415 /);
      expect(answer).toContain('"code":"unsupported_media_type"');
      expect(answer).toContain('multipart/form-data');
    }
  });
});
