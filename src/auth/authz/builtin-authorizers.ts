import { SYSTEM_MASTERS } from '../user.ts';
import type { Authorizer } from './authorizer.ts';

/** system:masters may do anything, whatever else is configured. */
export const privilegedGroupAuthorizer: Authorizer = {
  name: 'privileged-group',
  authorize: ({ user }) => ({ decision: user.groups.includes(SYSTEM_MASTERS) ? 'allow' : 'noOpinion' }),
};

export const alwaysAllowAuthorizer: Authorizer = { name: 'AlwaysAllow', authorize: () => ({ decision: 'allow' }) };
export const alwaysDenyAuthorizer: Authorizer = {
  name: 'AlwaysDeny',
  authorize: () => ({ decision: 'deny', reason: 'Everything is forbidden.' }),
};
