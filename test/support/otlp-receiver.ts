import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One OTLP/HTTP export as a collector received it. */
export interface OtlpExport {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An attribute value of OTLP's JSON encoding. */
export interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}

export type OtlpAttributes = { key: string; value: OtlpValue }[];

export interface OtlpReceiver {
  /** The collector's base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` names it. */
  url: string;
  /** Every export received, in order. */
  exports: OtlpExport[];
  /** The parsed bodies of the exports to one path (`/v1/traces`, `/v1/metrics`). */
  bodies<T>(path: string): T[];
  close(): Promise<void>;
}

/** A collector's OTLP/HTTP routes that accept and keep every export. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpExport[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST')
        exports.push({
          path: request.url ?? '/',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    bodies: <T>(path: string) =>
      exports.filter((entry) => entry.path === path).map((entry) => JSON.parse(entry.body) as T),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** OTLP attributes as a plain object (integers as numbers). */
export function attributesOf(attributes: OtlpAttributes): Record<string, unknown> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.boolValue ??
        value.doubleValue,
    ]),
  );
}
