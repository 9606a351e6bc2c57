/**
 * The `request` and `namespaceObject` variables, as upstream fills them: the AdmissionRequest of the
 * write with the matched kind and resource (`kind`, `resource`) next to the requested ones
 * (`requestKind`, `requestResource`), omitting empty optional fields as its JSON does, and the
 * namespace reduced to the fields upstream's namespace type declares.
 */
import type { KubeObject } from '../../api/types.ts';
import type { GroupVersionKind } from '../../registry/kind.ts';
import type { AdmissionAttributes, GroupVersionResource } from '../attributes.ts';
import { requestNamespace } from './matching.ts';

/** The AdmissionRequest (without uid, object and oldObject, which are variables of their own). */
export function admissionRequest(a: AdmissionAttributes, resource: GroupVersionResource, kind: GroupVersionKind): Record<string, unknown> {
  const userInfo: Record<string, unknown> = {};
  if (a.user.name) userInfo.username = a.user.name;
  if (a.user.uid) userInfo.uid = a.user.uid;
  if (a.user.groups.length > 0) userInfo.groups = [...a.user.groups];
  const extra = a.user.extra ?? {};
  if (Object.keys(extra).length > 0) userInfo.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, [...v]]));
  const out: Record<string, unknown> = {
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
  };
  if (a.subresource) out.subResource = a.subresource;
  out.requestKind = { group: a.kind.group, version: a.kind.version, kind: a.kind.kind };
  out.requestResource = { group: a.resource.group, version: a.resource.version, resource: a.resource.resource };
  if (a.subresource) out.requestSubResource = a.subresource;
  if (a.name) out.name = a.name;
  const namespace = requestNamespace(a);
  if (namespace) out.namespace = namespace;
  out.operation = a.operation;
  out.userInfo = userInfo;
  out.dryRun = a.dryRun;
  out.options = a.options ? { ...a.options } : null;
  return out;
}

const NAMESPACE_METADATA = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'];

/** upstream's CreateNamespaceObject: the namespace's spec, status and the metadata a policy may read. */
export function namespaceObject(ns: KubeObject): Record<string, unknown> {
  const meta = (ns.metadata ?? {}) as Record<string, unknown>;
  const metadata: Record<string, unknown> = {};
  for (const key of NAMESPACE_METADATA) {
    const v = meta[key];
    if (v === undefined || v === null || v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0)) continue;
    metadata[key] = v;
  }
  // creationTimestamp is a struct upstream: it is always there, null when unset.
  if (!('creationTimestamp' in metadata)) metadata.creationTimestamp = null;
  return { metadata, spec: ns.spec ?? {}, status: ns.status ?? {} };
}
