import { FieldSet, fieldElement, type Path } from '../../ssa/fieldpath/index.ts';
import { apiVersionOf, subresourceOf, type KindDefinition } from '../kind.ts';

/**
 * Fields a write through a given endpoint does not get to own, because the strategy puts them
 * back (upstream's GetResetFields, handed to the field manager as the updater's ignored fields):
 * the main resource of a kind with a status subresource cannot write status, and the status
 * subresource cannot write spec.
 */

/** Reset paths by apiVersion, as a strategy declares them; paths are dotted field names. */
type ResetTable = Readonly<Record<string, readonly string[]>>;

interface KindResets {
  /** The main resource; undefined keeps the common `status`. */
  readonly main?: (apiVersion: string) => ResetTable;
  /** Subresources by name; `status` undefined keeps the common `spec`. */
  readonly subresources?: Readonly<Record<string, (apiVersion: string) => ResetTable>>;
}

const only = (...paths: string[]) => (apiVersion: string): ResetTable => ({ [apiVersion]: paths });

/** Status strategies that also reset the user's metadata (they call ResetObjectMetaForStatus). */
const SPEC_AND_METADATA = only('spec', 'metadata');

/**
 * Where kube-apiserver 1.34's strategies (pkg/registry/…/strategy.go, kube-aggregator's for
 * APIService) depart from the common rule, by `group/Kind`.
 */
const DIFFERENCES: Readonly<Record<string, KindResets>> = {
  // pods/status cannot set deletionTimestamp or ownerReferences either (old kubelets corrupted them).
  '/Pod': { subresources: { status: only('spec', 'metadata.deletionTimestamp', 'metadata.ownerReferences') } },
  // namespaces/finalize writes spec.finalizers and nothing of status.
  '/Namespace': { subresources: { finalize: only('status') } },
  'apiregistration.k8s.io/APIService': { subresources: { status: SPEC_AND_METADATA } },
  'flowcontrol.apiserver.k8s.io/FlowSchema': { subresources: { status: SPEC_AND_METADATA } },
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration': { subresources: { status: SPEC_AND_METADATA } },
  'storage.k8s.io/VolumeAttachment': { subresources: { status: SPEC_AND_METADATA } },
  'storagemigration.k8s.io/StorageVersionMigration': { subresources: { status: SPEC_AND_METADATA } },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': { subresources: { status: SPEC_AND_METADATA } },
  // Upstream keys ServiceCIDR's reset fields by "networking/v1" and "networking/v1beta1", which no
  // request's apiVersion (networking.k8s.io/…) ever matches: in 1.34 nothing is reset for it, through
  // either endpoint. Kept as written there so the behaviour is the same.
  'networking.k8s.io/ServiceCIDR': {
    main: () => ({ 'networking/v1': ['status'], 'networking/v1beta1': ['status'] }),
    subresources: { status: () => ({ 'networking/v1': ['spec'], 'networking/v1beta1': ['spec'] }) },
  },
};

function toSets(table: ResetTable): ReadonlyMap<string, FieldSet> {
  const out = new Map<string, FieldSet>();
  for (const [apiVersion, paths] of Object.entries(table)) {
    out.set(apiVersion, FieldSet.fromPaths(paths.map((p): Path => p.split('.').map(fieldElement))));
  }
  return out;
}

/**
 * The reset fields of a write through `subresource` ('' for the main resource) of `kind`, or
 * undefined when that endpoint resets nothing.
 */
export function resetFieldsFor(kind: KindDefinition, subresource: string): ReadonlyMap<string, FieldSet> | undefined {
  const hasStatus = subresourceOf(kind, 'status') !== undefined;
  const differences = DIFFERENCES[`${kind.group}/${kind.kind}`];
  const apiVersion = apiVersionOf(kind);
  if (subresource === '') {
    const main = differences?.main ?? (hasStatus ? only('status') : undefined);
    return main ? toSets(main(apiVersion)) : undefined;
  }
  if (!subresourceOf(kind, subresource)) return undefined;
  const own = differences?.subresources?.[subresource] ?? (subresource === 'status' ? only('spec') : undefined);
  return own ? toSets(own(apiVersion)) : undefined;
}
