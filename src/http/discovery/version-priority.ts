/**
 * Kubernetes version priority: GA before beta before alpha, then the higher major, then the
 * higher minor; strings that are not Kubernetes versions sort after all of those, in reverse
 * lexical order. Sorted: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.
 */

interface KubeVersion {
  readonly major: number;
  /** 2 = GA, 1 = beta, 0 = alpha. */
  readonly stability: number;
  readonly minor: number;
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function parse(v: string): KubeVersion | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const major = Number(m[1]);
  if (!Number.isSafeInteger(major)) return undefined;
  if (!m[2]) return { major, stability: 2, minor: 0 };
  const minor = Number(m[3]);
  if (!Number.isSafeInteger(minor)) return undefined;
  return { major, stability: m[2] === 'beta' ? 1 : 0, minor };
}

/**
 * Compares two version strings by Kubernetes priority.
 * Positive when `a` has the higher priority, negative when `b` has, 0 when equal.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parse(a);
  const pb = parse(b);
  if (!pa && !pb) return a < b ? 1 : -1;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa.stability !== pb.stability) return pa.stability - pb.stability;
  if (pa.major !== pb.major) return pa.major - pb.major;
  return pa.minor - pb.minor;
}

/** Versions sorted highest priority first; the first is a group's preferred version. */
export function sortVersionsByPriority(versions: Iterable<string>): string[] {
  return [...new Set(versions)].sort((a, b) => compareKubeAwareVersions(b, a));
}
