import type { RequestInfo } from './request-info.ts';

/** kube-apiserver's long-running verbs and streaming subresources (its BasicLongRunningRequestCheck). */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const LONG_RUNNING_PATH_PREFIX = '/debug/pprof/';

/**
 * Requests that stay open by design: watch and proxy verbs, streaming subresources, /debug/pprof/.
 * The in-flight limit does not count them, the audit log gives their response start an event of its
 * own, GOAWAY does not cut them, and their answer is a stream of events rather than one object (so
 * never gzipped as one).
 */
export function isLongRunning(info: RequestInfo): boolean {
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  return info.isResourceRequest ? LONG_RUNNING_SUBRESOURCES.has(info.subresource) : info.path.startsWith(LONG_RUNNING_PATH_PREFIX);
}
