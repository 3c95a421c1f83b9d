import { stdSerializers } from 'pino';
import { redactClientTokens } from '../auth/find-client-token.ts';
import { redactUrl } from './redact-url.ts';

/**
 * How requests and errors are written to the log (docs/api.md: no token in any log line). The
 * credential headers are removed by pino's redaction (build-app.ts); these take care of the
 * rest: the URL loses its query values and any token-shaped text, and an error's message and
 * stack, which may quote a URL or a body, lose any token-shaped text.
 */
export const logSerializers = {
  req(request: { method: string; url: string; id: string }) {
    return { method: request.method, url: redactUrl(request.url), requestId: request.id };
  },
  err(error: Error) {
    const serialized = stdSerializers.err(error);
    serialized.message = redactClientTokens(serialized.message);
    serialized.stack = redactClientTokens(serialized.stack);
    return serialized;
  },
};
