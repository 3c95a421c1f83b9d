import { connect, type Server, type Socket } from 'node:net';

import { describe, expect, it } from 'vitest';

import { lingerLimits } from '../../src/http/linger-after-refusal.ts';
import { startTestGateway } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';

interface Writer {
  socket: Socket;
  /** Everything the gateway sent. */
  received(): string;
  /** Bytes of body the client managed to write. */
  written(): number;
  /** Resolves once the connection is gone, with the milliseconds it took since the headers. */
  closed: Promise<number>;
}

/**
 * A client that keeps its side open after the gateway's answer (`allowHalfOpen`) and sends
 * `chunkBytes` of body every `everyMs` (0: as fast as the socket takes it) until it is stopped
 * or the connection goes.
 */
async function startWriter(
  port: number,
  declaredBytes: number,
  pace: { chunkBytes: number; everyMs: number; stopAfterBytes?: number },
): Promise<Writer> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  let written = 0;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  const start = Date.now();
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => resolve(Date.now() - start)),
  );
  socket.write(
    'POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer sy_invalid\r\n' +
      `content-type: application/json\r\ncontent-length: ${declaredBytes}\r\n\r\n`,
  );
  const chunk = Buffer.alloc(pace.chunkBytes, 0x61);
  const writeMore = () => {
    while (!socket.destroyed && written < (pace.stopAfterBytes ?? Infinity)) {
      written += chunk.length;
      const more = socket.write(chunk);
      if (pace.everyMs > 0) {
        setTimeout(writeMore, pace.everyMs);
        return;
      }
      if (!more) {
        socket.once('drain', writeMore);
        return;
      }
    }
  };
  writeMore();
  return { socket, received: () => text, written: () => written, closed };
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** docs/decisions/0110: after an early refusal the body is read and discarded, within bounds. */
describe('the lingering close after a request refused before its body', () => {
  const bed = useTestBed(async () => {
    const gateway = await startTestGateway({});
    const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    return { gateway, port: Number(new URL(address).port), close: () => gateway.close() };
  });

  it('lets a client writing fast read the whole answer, and stops reading past the bytes bound', async () => {
    const writer = await startWriter(bed.port, 1024 * 1024 * 1024, {
      chunkBytes: 256 * 1024,
      everyMs: 0,
    });
    await writer.closed;
    expect(writer.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(writer.received()).toContain('"code":"malformed_token"');
    // Socket buffers on both ends hold some megabytes the gateway never read.
    expect(writer.written()).toBeLessThan(lingerLimits.bytes + 16 * 1024 * 1024);
  }, 15_000);

  it('closes a connection whose client stops sending after the idle bound', async () => {
    const start = Date.now();
    const writer = await startWriter(bed.port, 1024 * 1024, {
      chunkBytes: 1024,
      everyMs: 0,
      stopAfterBytes: 4096,
    });
    // The client keeps its side open and sends nothing, so only the gateway's side tells.
    while ((await openConnections(bed.gateway.app.server)) > 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const elapsed = Date.now() - start;
    writer.socket.destroy();
    expect(writer.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(elapsed).toBeGreaterThanOrEqual(lingerLimits.idleMilliseconds - 100);
    expect(elapsed).toBeLessThan(lingerLimits.idleMilliseconds + 2_000);
  });

  it('closes a connection whose client keeps trickling after the time bound', async () => {
    const writer = await startWriter(bed.port, 1024 * 1024 * 1024, {
      chunkBytes: 1024,
      everyMs: 200,
    });
    const elapsed = await writer.closed;
    writer.socket.destroy();
    expect(writer.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(elapsed).toBeGreaterThanOrEqual(lingerLimits.milliseconds - 100);
    expect(elapsed).toBeLessThan(lingerLimits.milliseconds + 2_000);
  }, 15_000);
});
