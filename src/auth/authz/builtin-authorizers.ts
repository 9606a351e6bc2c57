import { SYSTEM_MASTERS } from '../user.ts';
import type { Authorizer } from './authorizer.ts';
import type { SubjectRules } from './rules.ts';

/** system:masters may do anything, whatever else is configured. */
export const privilegedGroupAuthorizer: Authorizer = {
  name: 'privileged-group',
  authorize: ({ user }) => ({ decision: user.groups.includes(SYSTEM_MASTERS) ? 'allow' : 'noOpinion' }),
};

const EVERYTHING: SubjectRules = Object.freeze({
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
});
const NOTHING: SubjectRules = Object.freeze({ resourceRules: [], nonResourceRules: [], incomplete: false });

export const alwaysAllowAuthorizer: Authorizer = { name: 'AlwaysAllow', authorize: () => ({ decision: 'allow' }), rulesFor: () => EVERYTHING };
export const alwaysDenyAuthorizer: Authorizer = {
  name: 'AlwaysDeny',
  authorize: () => ({ decision: 'deny', reason: 'Everything is forbidden.' }),
  rulesFor: () => NOTHING,
};
