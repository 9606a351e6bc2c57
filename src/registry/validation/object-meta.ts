import type { FieldError } from '../../api/errors.ts';
import type { KubeObject, ObjectMeta } from '../../api/types.ts';
import type { KindDefinition } from '../kind.ts';
import { finalizerNameErrors, labelValueErrors, qualifiedNameErrors } from '../../api/validation/names.ts';
import * as field from './field.ts';
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN } from '../gc-finalizers.ts';
import { invalidEach, nameErrors } from './names.ts';

const TOTAL_ANNOTATION_SIZE = 256 * 1024;
const META = field.path('metadata');
const LABELS = META.child('labels');
const ANNOTATIONS = META.child('annotations');

function isStringMap(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** ObjectMeta rules common to every kind, for create and update alike. */
export function validateObjectMeta(kind: KindDefinition, obj: KubeObject): FieldError[] {
  const meta = (obj.metadata ?? {}) as ObjectMeta;
  const errs: FieldError[] = [];
  const name = meta.name ?? '';
  if (!name) {
    errs.push(field.required(META.child('name'), 'name or generateName is required'));
  } else {
    errs.push(...invalidEach(META.child('name'), name, nameErrors(kind.nameRule, name)));
  }
  if (kind.namespaced) {
    if (!meta.namespace) errs.push(field.required(META.child('namespace')));
  } else if (meta.namespace) {
    errs.push(field.forbidden(META.child('namespace'), 'not allowed on this type'));
  }

  const labels = meta.labels;
  if (labels !== undefined && labels !== null) {
    if (!isStringMap(labels)) {
      errs.push(field.typeInvalid(LABELS, labels, 'must be a map of strings'));
    } else {
      for (const [k, v] of Object.entries(labels)) {
        errs.push(...invalidEach(LABELS, k, qualifiedNameErrors(k)));
        if (typeof v !== 'string') {
          errs.push(field.typeInvalid(LABELS, v, 'must be a string'));
        } else {
          errs.push(...invalidEach(LABELS, v, labelValueErrors(v)));
        }
      }
    }
  }

  const annotations = meta.annotations;
  if (annotations !== undefined && annotations !== null) {
    if (!isStringMap(annotations)) {
      errs.push(field.typeInvalid(ANNOTATIONS, annotations, 'must be a map of strings'));
    } else {
      let size = 0;
      for (const [k, v] of Object.entries(annotations)) {
        errs.push(...invalidEach(ANNOTATIONS, k, qualifiedNameErrors(k.toLowerCase())));
        if (typeof v !== 'string') errs.push(field.typeInvalid(ANNOTATIONS, v, 'must be a string'));
        // Bytes, as Go's len counts them.
        size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
      }
      if (size > TOTAL_ANNOTATION_SIZE) errs.push(field.tooLong(ANNOTATIONS, TOTAL_ANNOTATION_SIZE));
    }
  }

  // Owner references come before finalizers, in upstream's order.
  errs.push(...ownerReferenceErrors((meta as { ownerReferences?: unknown }).ownerReferences));

  const finalizers = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers)) {
      errs.push(field.typeInvalid(META.child('finalizers'), finalizers, 'must be a list of strings'));
    } else {
      const seen = new Set<string>();
      finalizers.forEach((f, i) => {
        const at = META.child('finalizers').index(i);
        if (typeof f !== 'string') {
          errs.push(field.typeInvalid(at, f, 'must be a string'));
          return;
        }
        errs.push(...invalidEach(at, f, kind.coreObjectMeta ? finalizerNameErrors(f) : qualifiedNameErrors(f)));
        if (seen.has(f)) errs.push(field.duplicate(at, f));
        seen.add(f);
      });
      errs.push(...conflictingGcFinalizers(finalizers));
    }
  }
  if (meta.generateName !== undefined && typeof meta.generateName !== 'string') {
    errs.push(field.typeInvalid(META.child('generateName'), meta.generateName, 'must be a string'));
  } else if (meta.generateName) {
    // A prefix: judged as a name whose trailing dashes will be followed by the generated suffix.
    const asName = meta.generateName.replace(/-+$/, (dashes) => 'a'.repeat(dashes.length));
    errs.push(...invalidEach(META.child('generateName'), meta.generateName, nameErrors(kind.nameRule, asName)));
  }
  return errs;
}

/** Metadata that an update may not change. */
export function validateObjectMetaUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const meta = obj.metadata ?? {};
  const oldMeta = old.metadata ?? {};
  for (const name of ['name', 'namespace', 'uid', 'creationTimestamp'] as const) {
    if ((meta[name] ?? '') !== (oldMeta[name] ?? '')) errs.push(field.immutable(META.child(name), meta[name] ?? ''));
  }
  return errs;
}

/** Go's schema.ParseGroupVersion: `v1`, `group/version`; undefined for more than one slash. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

/** Kinds that may not own anything (upstream's BannedOwners): core v1 Events. */
const BANNED_OWNERS = new Set(['/v1, Kind=Event']);

/** Go's `%#v` of an OwnerReference, as the banned-owner error prints it. */
function goOwnerReference(r: Record<string, unknown>): string {
  const str = (v: unknown) => JSON.stringify(typeof v === 'string' ? v : '');
  const ptr = (v: unknown) => (typeof v === 'boolean' ? `(*bool)(${v})` : '(*bool)(nil)');
  return `v1.OwnerReference{APIVersion:${str(r.apiVersion)}, Kind:${str(r.kind)}, Name:${str(r.name)}, UID:${str(r.uid)}, Controller:${ptr(r.controller)}, BlockOwnerDeletion:${ptr(r.blockOwnerDeletion)}}`;
}

/** Go's `%#v` of a list of OwnerReferences, as the controller rule prints the whole list. */
function goOwnerReferences(refs: readonly Record<string, unknown>[]): string {
  return `[]v1.OwnerReference{${refs.map(goOwnerReference).join(', ')}}`;
}

/**
 * metadata.ownerReferences as Kubernetes 1.34 validates them: apiVersion with a version, kind, name
 * and uid all set, no core Event as owner, at most one reference with `controller: true`. Upstream
 * reports a reference's errors under the list's path, without its index. (The JSON types were
 * checked at decoding.)
 */
function ownerReferenceErrors(refs: unknown): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  const at = META.child('ownerReferences');
  const valid = refs.filter((ref): ref is Record<string, unknown> => typeof ref === 'object' && ref !== null);
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  let firstController = '';
  for (const r of valid) {
    const gv = parseGroupVersion(text(r.apiVersion)) ?? { group: '', version: '' };
    if (gv.version === '') errs.push(field.invalid(at.child('apiVersion'), text(r.apiVersion), 'version must not be empty'));
    if (text(r.kind) === '') errs.push(field.invalid(at.child('kind'), '', 'must not be empty'));
    if (text(r.name) === '') errs.push(field.invalid(at.child('name'), '', 'must not be empty'));
    if (text(r.uid) === '') errs.push(field.invalid(at.child('uid'), '', 'must not be empty'));
    const gvk = `${gv.group}/${gv.version}, Kind=${text(r.kind)}`;
    // The value prints as Go's %#v of the struct, which no generic rule gives.
    if (BANNED_OWNERS.has(gvk)) errs.push({ type: 'FieldValueInvalid', field: String(at), rawValue: goOwnerReference(r), detail: `${gvk} is disallowed from being an owner` });
    if (r.controller !== true) continue;
    const controller = `${text(r.kind)}/${text(r.name)}`;
    if (firstController === '') {
      firstController = controller;
      continue;
    }
    errs.push({
      type: 'FieldValueInvalid',
      field: String(at),
      rawValue: goOwnerReferences(valid),
      detail: `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${controller}`,
    });
  }
  return errs;
}

/**
 * The collector's two finalizers exclude each other: an object is either orphaning its dependents
 * or deleting them (upstream's ValidateFinalizers; the value is the whole list).
 */
function conflictingGcFinalizers(finalizers: readonly unknown[]): FieldError[] {
  if (!finalizers.includes(FINALIZER_ORPHAN) || !finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) return [];
  const list = `[]string{${finalizers.map((f) => JSON.stringify(String(f))).join(', ')}}`;
  return [{ type: 'FieldValueInvalid', field: String(META.child('finalizers')), rawValue: list, detail: `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set` }];
}
