/** A namespace status condition, as the namespace controller reports deletion progress. */
export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

/** What is left in a terminating namespace: object counts per resource and per finalizer. */
export interface RemainingContent {
  readonly resources: ReadonlyMap<string, number>;
  readonly finalizers: ReadonlyMap<string, number>;
}

function listed(counts: ReadonlyMap<string, number>, what: (key: string, n: number) => string): string {
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, n]) => what(k, n)).join(', ');
}

/**
 * The deletion conditions upstream's namespace controller sets (what `kubectl describe ns` shows
 * while a namespace is stuck terminating). A condition keeps its lastTransitionTime while its
 * status stays the same, so repeated passes do not rewrite the namespace.
 */
export function deletionConditions(previous: readonly NamespaceCondition[] | undefined, left: RemainingContent, now: string): NamespaceCondition[] {
  const anyResources = left.resources.size > 0;
  const anyFinalizers = left.finalizers.size > 0;
  const wanted: Omit<NamespaceCondition, 'lastTransitionTime'>[] = [
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    anyResources
      ? {
          type: 'NamespaceContentRemaining',
          status: 'True',
          reason: 'SomeResourcesRemain',
          message: `Some resources are remaining: ${listed(left.resources, (r, n) => `${r} has ${n} resource instances`)}`,
        }
      : { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
    anyFinalizers
      ? {
          type: 'NamespaceFinalizersRemaining',
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: `Some content in the namespace has finalizers remaining: ${listed(left.finalizers, (f, n) => `${f} in ${n} resource instances`)}`,
        }
      : { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers have been removed' },
  ];
  return wanted.map((c) => {
    const before = previous?.find((p) => p.type === c.type);
    const lastTransitionTime = before && before.status === c.status ? before.lastTransitionTime : now;
    return { ...c, lastTransitionTime };
  });
}
