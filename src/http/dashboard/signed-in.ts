import { ApiError } from '../../canonical/generation-error.ts';
import type { SignedIn } from '../../dashboard/dashboard-sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session and its account, set by the dashboard routes' session hook. */
    dashboard?: SignedIn;
  }
}

/** The signed-in account, which the session hook has set on every route behind it. */
export function signedIn(request: { dashboard?: SignedIn }): SignedIn {
  if (request.dashboard === undefined) throw new ApiError('dashboard_unauthorized');
  return request.dashboard;
}
