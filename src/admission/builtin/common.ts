/** What the built-in admission plugins share: upstream's Forbidden wording, and their stores and informers. */
import { ApiError, forbidden } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { Informer } from '../../registry/informer.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import { ResourceStore } from '../../registry/resource-store.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import { NO_ADMISSION } from '../chain.ts';
import type { AdmissionDeps } from '../index.ts';

export type Obj = Record<string, any>;

/**
 * The name a refusal names, as upstream's admission.NewForbidden finds it: the request's name, else
 * the object's name or generateName (names are generated after mutating admission), else `Unknown`.
 */
export function admissionName(a: AdmissionAttributes): string {
  if (a.name) return a.name;
  const meta = a.object?.metadata;
  if (meta) {
    if (typeof meta.name === 'string' && meta.name) return meta.name;
    if (typeof meta.generateName === 'string' && meta.generateName) return meta.generateName;
  }
  return 'Unknown';
}

/** 403 `<resource> "<name>" is forbidden: <why>` for the request, as admission.NewForbidden builds it. */
export function admissionForbidden(a: AdmissionAttributes, why: string): ApiError {
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, admissionName(a), why);
}

/** Whether the request is about the core kind `kind` (any version). */
export function isCoreKind(a: AdmissionAttributes, kind: string): boolean {
  return a.kind.group === '' && a.kind.kind === kind;
}

/** The served kind `group`/`kind`; a plugin that needs a kind this server does not serve cannot start. */
export function servedKind(deps: AdmissionDeps, group: string, kind: string, plugin: string): KindDefinition {
  const found = deps.kinds.find((k) => k.group === group && k.kind === kind);
  if (!found) throw new Error(`admission plugin ${plugin} needs ${kind} objects, which this server does not serve`);
  return found;
}

/** A store that reads (and, for the quota plugin, writes status) without admission. */
export function plainStore(deps: AdmissionDeps, kind: KindDefinition): ResourceStore {
  return new ResourceStore(kind, deps.storage, NO_ADMISSION);
}

/** An informer over every object of `kind`, optionally indexed by namespace. */
export function namespaceIndexedInformer(deps: AdmissionDeps, store: ResourceStore): Informer {
  return new Informer(store, { logger: deps.logger, index: (obj) => [obj.metadata.namespace ?? ''] });
}

/** The mirror pod annotation (a static pod's copy in the API, made by its kubelet). */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

export function isMirrorPod(obj: KubeObject | undefined): boolean {
  const annotations = obj?.metadata?.annotations as Record<string, string> | undefined;
  return annotations !== undefined && Object.hasOwn(annotations, MIRROR_POD_ANNOTATION);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
