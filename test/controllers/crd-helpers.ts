/**
 * Shared by the crd-*.test.ts files: CRD objects, a stand-in for the serving loop (a kind served
 * under a CRD's names, objects borrowing ConfigMap's schema), and the CRD controllers on a test
 * registry.
 */
import pino from 'pino';
import type { KubeObject, StoredKubeObject } from '../../src/api/types.ts';
import { CrdControllers } from '../../src/controllers/crd/crd-controllers.ts';
import { defineKind, type KindDefinition } from '../../src/registry/kind.ts';
import type { ResourceStore } from '../../src/registry/resource-store.ts';
import { testContext, type TestRegistry } from '../helpers/registry.ts';
import { until } from './gc-helpers.ts';

export { until };

export const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export interface CrdNamesInput {
  group: string;
  plural: string;
  kind: string;
  listKind?: string;
  singular?: string;
  shortNames?: string[];
  scope?: 'Namespaced' | 'Cluster';
  annotations?: Record<string, string>;
}

/** A v1 CRD with one served and stored version and a structural schema. */
export function crdObject(n: CrdNamesInput): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${n.plural}.${n.group}`, ...(n.annotations ? { annotations: n.annotations } : {}) },
    spec: {
      group: n.group,
      scope: n.scope ?? 'Namespaced',
      names: { plural: n.plural, singular: n.singular ?? n.kind.toLowerCase(), kind: n.kind, listKind: n.listKind ?? `${n.kind}List`, ...(n.shortNames ? { shortNames: n.shortNames } : {}) },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } } } },
        },
      ],
    },
  };
}

/**
 * A stand-in for what the serving loop adds for a CRD: a kind at its group, v1 and plural, marked
 * as the CRD's when one is given (the finalizer deletes only through the CRD's own kind).
 */
export function standInKind(group: string, plural: string, kind: string, crd?: StoredKubeObject): KindDefinition {
  return defineKind({
    group,
    version: 'v1',
    kind,
    plural,
    namespaced: true,
    schemaMessage: 'k8s.io.api.core.v1.ConfigMap',
    ...(crd ? { customResource: { crd, version: 'v1' } } : {}),
  });
}

export function crdStore(reg: TestRegistry): ResourceStore {
  return reg.store('customresourcedefinitions', 'apiextensions.k8s.io');
}

export async function createCrd(reg: TestRegistry, n: CrdNamesInput): Promise<StoredKubeObject> {
  return (await crdStore(reg).create(testContext(), '', crdObject(n))).object;
}

export async function getCrd(reg: TestRegistry, name: string): Promise<StoredKubeObject | undefined> {
  try {
    return (await crdStore(reg).get(testContext(), '', name)).object;
  } catch {
    return undefined;
  }
}

export type Condition = { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string };

export function conditionOf(obj: StoredKubeObject | undefined, type: string): Condition | undefined {
  const conditions = ((obj as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? []) as Condition[];
  return conditions.find((c) => c.type === type);
}

/** Waits until the CRD's condition of `type` has `status` (and `reason`), and returns the CRD. */
export async function untilCondition(reg: TestRegistry, name: string, type: string, status: string, reason?: string): Promise<StoredKubeObject> {
  return until(async () => {
    const crd = await getCrd(reg, name);
    const c = conditionOf(crd, type);
    return c && c.status === status && (reason === undefined || c.reason === reason) ? crd : undefined;
  }, `${name} ${type}=${status}${reason ? ` (${reason})` : ''}`);
}

/** The CRD controllers on the registry, polling for leftover instances every 50 ms. */
export async function startCrdControllers(reg: TestRegistry, waitMs = 5000): Promise<CrdControllers> {
  const controllers = new CrdControllers(reg.surface, crdStore(reg), logger, { finalizer: { pollMs: 50, waitMs } });
  await controllers.start();
  return controllers;
}

export function acceptedNamesOf(obj: StoredKubeObject | undefined): Record<string, unknown> | undefined {
  return (obj as { status?: { acceptedNames?: Record<string, unknown> } } | undefined)?.status?.acceptedNames;
}
