import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../user.ts';

/**
 * One authentication method. Returns the user when the request carries this method's
 * credentials, null when it carries none of them, and throws an ApiError (401) when they are
 * present but wrong. The union (authenticate.ts) asks each method in turn; the first user wins, and a
 * failure counts only when no method succeeds.
 */
export interface Authenticator {
  readonly name: string;
  authenticate(req: IncomingMessage): Promise<UserInfo | null> | UserInfo | null;
}
