/** Who a request is from, as authentication found it and authorization reads it. */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export const ANONYMOUS: UserInfo = Object.freeze({
  name: 'system:anonymous',
  groups: Object.freeze(['system:unauthenticated']),
});

export const SYSTEM_MASTERS = 'system:masters';
export const SYSTEM_AUTHENTICATED = 'system:authenticated';
