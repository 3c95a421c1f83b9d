/**
 * Calls to the dashboard's JSON routes (/api/dashboard/*). The browser authenticates with the
 * HttpOnly session cookie only; every state change also sends the session's CSRF token, which
 * lives in this module's memory and nowhere else (never in web storage).
 */
let csrfToken: string | undefined;
let onSignedOut: () => void = () => {};

export function useCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** What the app does when a call finds the session gone (expired, signed out elsewhere). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** A refused call, with the error body's type and message. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** The JSON answer of a call; an ApiFailure for any status from 400 up. */
export async function callApi<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const parsed: unknown = text === '' ? undefined : parseJson(text);
  if (!response.ok) {
    const error = (parsed as { error?: { type?: string; message?: string } } | undefined)?.error;
    const failure = new ApiFailure(
      response.status,
      error?.type ?? 'http_error',
      error?.message ?? `The gateway answered ${response.status}.`,
    );
    if (response.status === 401 && failure.type === 'dashboard_unauthorized') onSignedOut();
    throw failure;
  }
  return parsed as T;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A query string of the values that are set, with its `?`; empty when none is. */
export function queryString(values: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && value !== '') query.set(name, String(value));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** The message to show for a failed call. */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiFailure) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
