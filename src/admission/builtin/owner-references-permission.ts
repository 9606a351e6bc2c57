/**
 * OwnerReferencesPermissionEnforcement (upstream's plugin/pkg/admission/gc; off unless named in
 * --enable-admission-plugins, as in kube-apiserver 1.34). Owner references give the garbage
 * collector power over objects, so:
 * - changing an object's ownerReferences needs `delete` on the object itself;
 * - making a reference blocking (blockOwnerDeletion: true, new or turned on) needs `update` on the
 *   owner's `finalizers` subresource, since it holds the owner's foreground deletion.
 * pods/status is exempt (old kubelets write it whole; its strategy keeps ownerReferences anyway).
 */
import type { RequestInfo } from '../../api/request-info.ts';
import type { KubeObject } from '../../api/types.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import type { AdmissionDeps } from '../index.ts';
import { handlesOperations, type AdmissionPlugin } from '../plugin.ts';
import { admissionForbidden } from './common.ts';

export const OWNER_REFERENCES_PERMISSION_ENFORCEMENT = 'OwnerReferencesPermissionEnforcement';

interface OwnerReference {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly controller?: boolean | null;
  readonly blockOwnerDeletion?: boolean | null;
}

/** Requests exempt from the checks: group/resource/subresource. */
const EXEMPT: ReadonlySet<string> = new Set(['/pods/status']);

function ownerReferences(obj: KubeObject | undefined): OwnerReference[] {
  const refs = obj?.metadata?.ownerReferences;
  return Array.isArray(refs) ? (refs as OwnerReference[]) : [];
}

/** Semantic equality of two references: every field, an unset pointer differing from false. */
function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    (a.controller ?? null) === (b.controller ?? null) &&
    (a.blockOwnerDeletion ?? null) === (b.blockOwnerDeletion ?? null)
  );
}

/** Whether the write changes the ownerReferences (a create: whether it has any). */
export function isChangingOwnerReference(obj: KubeObject | undefined, old: KubeObject | undefined): boolean {
  const now = ownerReferences(obj);
  if (!old) return now.length > 0;
  const before = ownerReferences(old);
  return now.length !== before.length || now.some((r, i) => !sameReference(r, before[i]!));
}

/** The references that block their owner's deletion and did not before (new, or turned on). */
export function newBlockingOwnerReferences(obj: KubeObject | undefined, old: KubeObject | undefined): OwnerReference[] {
  const blocking = ownerReferences(obj).filter((r) => r.blockOwnerDeletion === true);
  if (blocking.length === 0 || !old) return blocking;
  const before = new Map(ownerReferences(old).map((r) => [r.uid, r]));
  return blocking.filter((r) => before.get(r.uid)?.blockOwnerDeletion !== true);
}

/** A resource request's attributes for authorization. */
function resourceRequest(verb: string, group: string, version: string, resource: string, subresource: string, namespace: string, name: string): RequestInfo {
  return {
    isResourceRequest: true,
    path: '',
    verb,
    apiPrefix: group ? 'apis' : 'api',
    apiGroup: group,
    apiVersion: version,
    namespace,
    resource,
    subresource,
    name,
    inNamespace: namespace !== '',
    parts: [],
  };
}

/** Go's `%v, %v` of an authorizer's reason and error (nil when there was none). */
function because(reason: string | undefined, error: string | undefined): string {
  return `${reason ?? ''}, ${error ?? '<nil>'}`;
}

export class OwnerReferencesPermissionEnforcement implements AdmissionPlugin {
  readonly name = OWNER_REFERENCES_PERMISSION_ENFORCEMENT;
  readonly handles = handlesOperations('CREATE', 'UPDATE');
  readonly #kinds: () => readonly KindDefinition[];

  /** `kinds`: the served kinds, or a function giving them as they are now (custom resource owners too). */
  constructor(kinds: readonly KindDefinition[] | (() => readonly KindDefinition[])) {
    this.#kinds = typeof kinds === 'function' ? kinds : () => kinds;
  }

  static build(deps: AdmissionDeps): { plugin: AdmissionPlugin } {
    return { plugin: new OwnerReferencesPermissionEnforcement(deps.servedKinds ?? deps.kinds) };
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (EXEMPT.has(`${a.resource.group}/${a.resource.resource}/${a.subresource}`)) return;
    if (!isChangingOwnerReference(a.object, a.oldObject)) return;
    const access = a.context.auth?.access;
    // Work the server does itself is not authorized.
    if (!access) return;
    const ask = (request: RequestInfo) => access.authorize({ user: a.user, request });

    const own = await ask(resourceRequest('delete', a.resource.group, a.resource.version, a.resource.resource, a.subresource, a.namespace, a.name));
    if (own.decision !== 'allow') {
      throw admissionForbidden(a, `cannot set an ownerRef on a resource you can't delete: ${because(own.reason, own.evaluationError)}`);
    }
    for (const ref of newBlockingOwnerReferences(a.object, a.oldObject)) {
      const apiVersion = ref.apiVersion ?? '';
      const slash = apiVersion.indexOf('/');
      const group = slash < 0 ? '' : apiVersion.slice(0, slash);
      const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
      // An owner kind may be served as more than one resource: each must allow it.
      const resources = this.#kinds().filter((k) => k.group === group && k.version === version && k.kind === ref.kind).map((k) => k.plural);
      if (resources.length === 0) {
        const gv = group ? `${group}/${version}` : version;
        const err = `no matches for kind ${JSON.stringify(ref.kind ?? '')} in version ${JSON.stringify(gv)}`;
        throw admissionForbidden(a, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${apiVersion} Kind ${ref.kind ?? ''}: ${because(own.reason, err)}`);
      }
      for (const resource of resources) {
        // An owner reference can only name an owner in the dependent's namespace (or a cluster-scoped one).
        const result = await ask(resourceRequest('update', group, version, resource, 'finalizers', a.namespace, ref.name ?? ''));
        if (result.decision !== 'allow') {
          throw admissionForbidden(a, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${because(result.reason, result.evaluationError)}`);
        }
      }
    }
  }
}
