/** "Who am I?" with a bearer token, as `kubectl auth whoami` asks it: a SelfSubjectReview. */
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from './http.ts';
import type { TestServer } from './server.ts';

export interface Whoami {
  readonly status: number;
  /** status.userInfo of the review when it was created (200/201). */
  readonly user?: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  readonly text: string;
}

/** Creates a SelfSubjectReview with `token` (and no client certificate). */
export async function whoami(srv: TestServer, token: string, path = '/apis/authentication.k8s.io/v1/selfsubjectreviews'): Promise<Whoami> {
  const r = await request(srv.url, path, {
    method: 'POST',
    agent: srv.anonymousAgent,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: r.status, user: r.json?.status?.userInfo, text: r.text };
}

/**
 * Waits until `token` authenticates: issuers are discovered in the background after start (or a
 * reload), so the first token is refused until then. Returns the last answer.
 */
export async function untilAuthenticated(srv: TestServer, token: string, timeoutMs = 15_000): Promise<Whoami> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await whoami(srv, token);
    if (answer.status !== 401 || Date.now() > deadline) return answer;
    await sleep(100);
  }
}
