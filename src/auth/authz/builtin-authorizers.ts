import { SYSTEM_MASTERS } from '../user.ts';
import type { Authorizer } from './authorizer.ts';

/** system:masters may do anything, whatever else is configured. */
export const privilegedGroupAuthorizer: Authorizer = {
  name: 'privileged-group',
  authorize: ({ user }) => ({ decision: user.groups.includes(SYSTEM_MASTERS) ? 'allow' : 'noOpinion' }),
};

const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version']);

/**
 * What the built-in system:public-info-viewer role grants everyone, anonymous included: GET on the
 * health endpoints (and their per-check paths) and /version.
 */
export const publicInfoAuthorizer: Authorizer = {
  name: 'public-info',
  authorize: ({ request }) => {
    if (request.isResourceRequest || request.verb !== 'get') return { decision: 'noOpinion' };
    const path = request.path.replace(/\/+$/, '');
    const root = `/${path.split('/')[1] ?? ''}`;
    return { decision: PUBLIC_PATHS.has(path) || (PUBLIC_PATHS.has(root) && root !== '/version') ? 'allow' : 'noOpinion' };
  },
};

export const alwaysAllowAuthorizer: Authorizer = { name: 'AlwaysAllow', authorize: () => ({ decision: 'allow' }) };
export const alwaysDenyAuthorizer: Authorizer = {
  name: 'AlwaysDeny',
  authorize: () => ({ decision: 'deny', reason: 'Everything is forbidden.' }),
};
