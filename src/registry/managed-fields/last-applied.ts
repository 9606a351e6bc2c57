import { cloneJson } from '../../codecs/deep-json.ts';
import { goJsonMarshal } from './go-json.ts';

/** The annotation client-side `kubectl apply` keeps its last configuration in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Upstream's TotalAnnotationSizeLimitB. */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function annotationsOf(obj: JsonObject): Record<string, unknown> | undefined {
  const meta = obj.metadata;
  if (!isObject(meta)) return undefined;
  return isObject(meta.annotations) ? meta.annotations : undefined;
}

/** The annotation's value when the object has a non-empty one. */
export function lastAppliedOf(obj: JsonObject): string | undefined {
  const value = annotationsOf(obj)?.[LAST_APPLIED_ANNOTATION];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * Sets the annotation, unless that takes the annotations past their 256 KiB total: then the
 * annotation is dropped altogether, as upstream's SetLastApplied does rather than fail the write.
 */
export function setLastApplied(obj: JsonObject, value: string): void {
  const meta = (isObject(obj.metadata) ? obj.metadata : (obj.metadata = {})) as JsonObject;
  const annotations = (isObject(meta.annotations) ? meta.annotations : (meta.annotations = {})) as Record<string, unknown>;
  annotations[LAST_APPLIED_ANNOTATION] = value;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) total += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(typeof v === 'string' ? v : '', 'utf8');
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) delete annotations[LAST_APPLIED_ANNOTATION];
}

/**
 * The annotation's value for an applied configuration: the configuration without the annotation
 * itself, written as Go's json.Encoder writes a map (sorted keys, HTML characters escaped, a final
 * newline). Annotations go through upstream's accessors on the way: null values read as "".
 */
export function buildLastApplied(config: JsonObject): string {
  const copy = cloneJson(config);
  const meta = copy.metadata;
  if (isObject(meta) && 'annotations' in meta) {
    const annotations = meta.annotations;
    // A map upstream cannot read as strings (null, or a value neither string nor null) reads as no
    // map at all, and setting "no map" back removes the field.
    if (isObject(annotations) && Object.values(annotations).every((v) => v === null || typeof v === 'string')) {
      const kept: Record<string, string> = {};
      for (const [k, v] of Object.entries(annotations)) if (k !== LAST_APPLIED_ANNOTATION) kept[k] = (v as string | null) ?? '';
      meta.annotations = kept;
    } else {
      delete meta.annotations;
    }
  }
  return `${goJsonMarshal(copy)}\n`;
}
