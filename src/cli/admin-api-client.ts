import { request } from 'undici';
import type { Config } from '../config/config-schema.ts';
import { readAdminToken } from '../config/load-config.ts';

/**
 * A command that asks the running gateway rather than its store (a reload, what its routes see):
 * calls `/api/admin/…` over HTTP with the admin token. Resolves to the JSON of a 2xx answer.
 */
export interface AdminApiClient {
  /** The gateway's origin the client calls, for messages. */
  readonly baseUrl: string;
  call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<unknown>;
}

/** A call the gateway refused or could not be made; `message` is what the operator reads. */
export class AdminApiError extends Error {
  override name = 'AdminApiError';
}

/** Longest wait for the gateway's answer: an admin call does its work while the client waits. */
const answerTimeoutMs = 60_000;

/**
 * The gateway the CLI talks to: `url` when given, else this machine's listening port from the
 * configuration; the admin token from the variable `admin.tokenEnv` names.
 */
export function adminApiTarget(
  config: Config,
  env: NodeJS.ProcessEnv,
  url: string | undefined,
): { baseUrl: string; token: string } {
  const token = readAdminToken(config, env);
  if (token === undefined) {
    throw new AdminApiError(
      `${config.admin.tokenEnv} is unset or empty: set it to the gateway's admin token.`,
    );
  }
  const baseUrl = url ?? `http://127.0.0.1:${config.server.port}`;
  try {
    const parsed = new URL(baseUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new AdminApiError(`--url: "${baseUrl}" is not an http(s) URL.`);
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ''), token };
}

export function createAdminApiClient(target: { baseUrl: string; token: string }): AdminApiClient {
  return {
    baseUrl: target.baseUrl,
    async call(method, path, body) {
      let status: number;
      let text: string;
      try {
        const response = await request(`${target.baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${target.token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          headersTimeout: answerTimeoutMs,
          bodyTimeout: answerTimeoutMs,
        });
        status = response.statusCode;
        text = await response.body.text();
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        throw new AdminApiError(
          `cannot reach the gateway at ${target.baseUrl}: ${typeof code === 'string' ? code : (error as Error).message} (give its address with --url)`,
        );
      }
      let answer: unknown;
      try {
        answer = text === '' ? undefined : JSON.parse(text);
      } catch {
        answer = undefined;
      }
      if (status >= 200 && status < 300) return answer;
      const message = (answer as { error?: { message?: unknown } } | undefined)?.error?.message;
      throw new AdminApiError(
        `the gateway answered ${status}: ${typeof message === 'string' ? message : text.slice(0, 500)}`,
      );
    },
  };
}
