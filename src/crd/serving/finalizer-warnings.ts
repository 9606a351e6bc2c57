/**
 * The warnings a custom resource write gets for the finalizers it adds (upstream's
 * generateWarningsFromObj): names that are not qualified names, and names without a path that are
 * not one of Kubernetes' standard finalizers.
 */
import type { KubeObject } from '../../api/types.ts';
import { goQuote } from '../../api/go/quote.ts';
import { qualifiedNameErrors } from '../../api/validation/names.ts';

const STANDARD_FINALIZERS = new Set(['orphan', 'foregroundDeletion', 'kubernetes']);
const PATH = 'metadata.finalizers';

function finalizerWarnings(name: string): string[] {
  const out = qualifiedNameErrors(name).map((msg) => `${PATH}: ${goQuote(name)}: ${msg}`);
  if (!name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
    out.push(`${PATH}: ${goQuote(name)}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`);
  }
  return out;
}

/** Warnings for the finalizers `obj` has and `old` (on updates) had not, in sorted order as upstream's set lists them. */
export function addedFinalizerWarnings(obj: KubeObject, old?: KubeObject): string[] {
  const before = new Set(old?.metadata?.finalizers ?? []);
  const added = [...new Set(obj.metadata?.finalizers ?? [])].filter((f) => !before.has(f)).sort();
  return added.flatMap(finalizerWarnings);
}
