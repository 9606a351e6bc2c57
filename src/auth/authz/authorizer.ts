import type { RequestInfo } from '../../api/request-info.ts';
import type { UserInfo } from '../user.ts';

export type Decision = 'allow' | 'deny' | 'noOpinion';

/** What authorization looks at: the user and the request's attributes. */
export interface Attributes {
  readonly user: UserInfo;
  readonly request: RequestInfo;
}

/** One authorization module; the chain asks each in order and the first allow or deny decides. */
export interface Authorizer {
  readonly name: string;
  authorize(attrs: Attributes): Promise<{ decision: Decision; reason?: string }> | { decision: Decision; reason?: string };
}
