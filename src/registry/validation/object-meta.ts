import type { FieldError } from '../../api/errors.ts';
import type { KubeObject, ObjectMeta } from '../../api/types.ts';
import type { KindDefinition } from '../kind.ts';
import { invalidEach, labelValueErrors, nameErrors, qualifiedNameErrors } from './names.ts';

const TOTAL_ANNOTATION_SIZE = 256 * 1024;

function isStringMap(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** ObjectMeta rules common to every kind, for create and update alike. */
export function validateObjectMeta(kind: KindDefinition, obj: KubeObject): FieldError[] {
  const meta = (obj.metadata ?? {}) as ObjectMeta;
  const errs: FieldError[] = [];
  const name = meta.name ?? '';
  if (!name) {
    errs.push({ type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' });
  } else {
    errs.push(...invalidEach('metadata.name', name, nameErrors(kind.nameRule, name)));
  }
  if (kind.namespaced) {
    if (!meta.namespace) errs.push({ type: 'FieldValueRequired', field: 'metadata.namespace' });
  } else if (meta.namespace) {
    errs.push({ type: 'FieldValueForbidden', field: 'metadata.namespace', detail: 'not allowed on this type' });
  }

  const labels = meta.labels;
  if (labels !== undefined && labels !== null) {
    if (!isStringMap(labels)) {
      errs.push({ type: 'FieldValueTypeInvalid', field: 'metadata.labels', value: labels, detail: 'must be a map of strings' });
    } else {
      for (const [k, v] of Object.entries(labels)) {
        errs.push(...invalidEach('metadata.labels', k, qualifiedNameErrors(k)));
        if (typeof v !== 'string') {
          errs.push({ type: 'FieldValueTypeInvalid', field: `metadata.labels`, value: v, detail: 'must be a string' });
        } else {
          errs.push(...invalidEach('metadata.labels', v, labelValueErrors(v)));
        }
      }
    }
  }

  const annotations = meta.annotations;
  if (annotations !== undefined && annotations !== null) {
    if (!isStringMap(annotations)) {
      errs.push({ type: 'FieldValueTypeInvalid', field: 'metadata.annotations', value: annotations, detail: 'must be a map of strings' });
    } else {
      let size = 0;
      for (const [k, v] of Object.entries(annotations)) {
        errs.push(...invalidEach('metadata.annotations', k, qualifiedNameErrors(k.toLowerCase())));
        if (typeof v !== 'string') {
          errs.push({ type: 'FieldValueTypeInvalid', field: `metadata.annotations`, value: v, detail: 'must be a string' });
        }
        size += k.length + String(v).length;
      }
      if (size > TOTAL_ANNOTATION_SIZE) {
        errs.push({ type: 'FieldValueTooLong', field: 'metadata.annotations', detail: `must have at most ${TOTAL_ANNOTATION_SIZE} bytes` });
      }
    }
  }

  const finalizers = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers)) {
      errs.push({ type: 'FieldValueTypeInvalid', field: 'metadata.finalizers', value: finalizers, detail: 'must be a list of strings' });
    } else {
      const seen = new Set<string>();
      finalizers.forEach((f, i) => {
        const field = `metadata.finalizers[${i}]`;
        if (typeof f !== 'string') {
          errs.push({ type: 'FieldValueTypeInvalid', field, value: f, detail: 'must be a string' });
          return;
        }
        errs.push(...invalidEach(field, f, qualifiedNameErrors(f)));
        if (seen.has(f)) errs.push({ type: 'FieldValueDuplicate', field, value: f });
        seen.add(f);
      });
    }
  }
  if (meta.generateName !== undefined && typeof meta.generateName !== 'string') {
    errs.push({ type: 'FieldValueTypeInvalid', field: 'metadata.generateName', value: meta.generateName, detail: 'must be a string' });
  } else if (meta.generateName) {
    // A prefix: judged as a name whose trailing dashes will be followed by the generated suffix.
    const asName = meta.generateName.replace(/-+$/, (dashes) => 'a'.repeat(dashes.length));
    errs.push(...invalidEach('metadata.generateName', meta.generateName, nameErrors(kind.nameRule, asName)));
  }
  return errs;
}

/** Metadata that an update may not change. */
export function validateObjectMetaUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const meta = obj.metadata ?? {};
  const oldMeta = old.metadata ?? {};
  for (const field of ['name', 'namespace', 'uid', 'creationTimestamp'] as const) {
    if ((meta[field] ?? '') !== (oldMeta[field] ?? '')) {
      errs.push({ type: 'FieldValueInvalid', field: `metadata.${field}`, value: meta[field] ?? '', detail: 'field is immutable' });
    }
  }
  return errs;
}
