/**
 * The scale subresource of a custom resource, as apiextensions-apiserver serves it: an
 * autoscaling/v1 Scale read from the object at the CRD's `specReplicasPath`, `statusReplicasPath`
 * and `labelSelectorPath`, and a Scale update written back to `specReplicasPath`.
 *
 * Paths are the simple dot paths CRD validation allows (`.spec.replicas`); they are read the way
 * unstructured.NestedInt64/NestedString do, so the error texts are theirs.
 */
import { ApiError, badRequest } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { goType, goValue } from '../api/go/values.ts';
import { isGoInt } from '../api/go/number.ts';
import type { ScaleSubresource } from './validation/types.ts';

export interface Scale {
  apiVersion: 'autoscaling/v1';
  kind: 'Scale';
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp: string | null;
  };
  /** `replicas` is omitted when zero (omitempty in autoscaling/v1). */
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

/** A plain Go error of the unstructured accessors (no API status of its own). */
export class ScalePathError extends Error {}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Splits a path on periods, ignoring the leading one. */
export function splitPath(path: string): string[] {
  return (path.startsWith('.') ? path.slice(1) : path).split('.');
}

function dotted(fields: string[]): string {
  return `.${fields.join('.')}`;
}

/** NestedFieldNoCopy: the value at `fields`, `found: false` when a level is missing or null. */
function nestedField(obj: unknown, fields: string[]): { found: boolean; value?: unknown } {
  let val: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return { found: false };
    if (!isMap(val)) {
      throw new ScalePathError(`${dotted(fields.slice(0, i + 1))} accessor error: ${goValue(val)} is of the type ${goType(val)}, expected map[string]interface{}`);
    }
    if (!Object.hasOwn(val, fields[i]!)) return { found: false };
    val = val[fields[i]!];
  }
  return { found: true, value: val };
}

export function nestedInt64(obj: unknown, fields: string[]): number | undefined {
  const { found, value } = nestedField(obj, fields);
  if (!found) return undefined;
  // Decoded JSON holds integral numbers as int64; anything else (float64, string, null) is refused.
  if (typeof value !== 'number' || !isGoInt(value)) {
    throw new ScalePathError(`${dotted(fields)} accessor error: ${goValue(value)} is of the type ${goType(value)}, expected int64`);
  }
  return value;
}

export function nestedString(obj: unknown, fields: string[]): string | undefined {
  const { found, value } = nestedField(obj, fields);
  if (!found) return undefined;
  if (typeof value !== 'string') {
    throw new ScalePathError(`${dotted(fields)} accessor error: ${goValue(value)} is of the type ${goType(value)}, expected string`);
  }
  return value;
}

/** Go's int32(x) of an int64: wraps around. */
function int32(n: number): number {
  return Number(BigInt.asIntN(32, BigInt(n)));
}

/**
 * scaleFromCustomResource: the Scale of an object and whether the spec replicas field exists
 * (absent replicas read as 0).
 *
 * @throws ScalePathError when a path crosses a non-object or holds a value of the wrong type.
 */
export function scaleFromCustomResource(obj: KubeObject, paths: ScaleSubresource): { scale: Scale; specReplicasFound: boolean } {
  const spec = nestedInt64(obj, splitPath(paths.specReplicasPath ?? ''));
  const status = nestedInt64(obj, splitPath(paths.statusReplicasPath ?? '')) ?? 0;
  let selector = '';
  if (paths.labelSelectorPath) selector = nestedString(obj, splitPath(paths.labelSelectorPath)) ?? '';
  const meta = obj.metadata ?? {};
  const specReplicas = int32(spec ?? 0);
  const scale: Scale = {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: {
      ...(meta.name ? { name: meta.name } : {}),
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      ...(meta.uid ? { uid: meta.uid } : {}),
      ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
      creationTimestamp: meta.creationTimestamp ?? null,
    },
    spec: specReplicas !== 0 ? { replicas: specReplicas } : {},
    status: { replicas: int32(status), ...(selector ? { selector } : {}) },
  };
  return { scale, specReplicasFound: spec !== undefined };
}

/** An accessor error as the client sees it: a plain error becomes a 500 with no reason. */
function unknownError(err: unknown): unknown {
  return err instanceof ScalePathError ? new ApiError(500, '', err.message) : err;
}

/** scaleFromCustomResource with an unreadable path as upstream's 500. */
function readScale(obj: KubeObject, paths: ScaleSubresource): ReturnType<typeof scaleFromCustomResource> {
  try {
    return scaleFromCustomResource(obj, paths);
  } catch (e) {
    throw unknownError(e);
  }
}

/**
 * GET …/scale: the object's Scale.
 *
 * @throws ApiError 500 when the paths cannot be read, or InternalError when spec replicas are absent.
 */
export function getScale(obj: KubeObject, paths: ScaleSubresource): Scale {
  const result = readScale(obj, paths);
  if (!result.specReplicasFound) {
    const text = `the spec replicas field ${JSON.stringify(paths.specReplicasPath ?? '')} does not exist`;
    throw new ApiError(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] });
  }
  return result.scale;
}

/** Marks a Scale's spec replicas as never set (upstream uses the smallest int32). */
export const UNSET_SPEC_REPLICAS = -2147483648;

/**
 * The Scale an update or patch starts from: the object's Scale, with spec replicas set to
 * UNSET_SPEC_REPLICAS when the object has none (so a patch that leaves it alone is refused).
 */
export function oldScaleForUpdate(obj: KubeObject, paths: ScaleSubresource): Scale {
  const result = readScale(obj, paths);
  if (!result.specReplicasFound) result.scale.spec = { replicas: UNSET_SPEC_REPLICAS };
  return result.scale;
}

/**
 * scaleUpdatedObjectInfo.UpdatedObject without managed fields: a copy of `obj` with the new
 * Scale's spec replicas written at `specReplicasPath` (creating missing levels) and its
 * resourceVersion, when given, as the update's precondition.
 *
 * @throws ApiError 400 when the Scale leaves spec replicas unset; 500 when a level is not an object.
 */
export function applyScale(obj: KubeObject, scale: Partial<Scale> | null | undefined, paths: ScaleSubresource): KubeObject {
  if (!scale) throw badRequest('nil update passed to Scale');
  const replicas = scale.spec?.replicas ?? 0;
  if (replicas === UNSET_SPEC_REPLICAS) {
    throw badRequest(`the spec replicas field ${JSON.stringify(paths.specReplicasPath ?? '')} cannot be empty`);
  }
  const out = structuredClone(obj);
  const fields = splitPath(paths.specReplicasPath ?? '');
  let m: Record<string, unknown> = out;
  for (let i = 0; i < fields.length - 1; i++) {
    const f = fields[i]!;
    if (!Object.hasOwn(m, f)) m[f] = {};
    const next = m[f];
    if (!isMap(next)) throw new ApiError(500, '', `value cannot be set because ${dotted(fields.slice(0, i + 1))} is not a map[string]interface{}`);
    m = next;
  }
  m[fields.at(-1)!] = replicas;
  const rv = scale.metadata?.resourceVersion;
  if (rv) out.metadata = { ...(out.metadata ?? {}), resourceVersion: rv };
  return out;
}
