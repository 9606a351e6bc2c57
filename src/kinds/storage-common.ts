/** Pieces PersistentVolume, PersistentVolumeClaim and VolumeAttachment share. */
import type { FieldError } from '../api/errors.ts';
import { parseQuantity, quantitySign } from '../api/go/quantity.ts';
import { dns1123LabelErrors, qualifiedNameErrors as qualifiedKeyErrors } from '../api/validation/names.ts';
import * as field from '../registry/validation/field.ts';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];

/** Access modes: known ones, and ReadWriteOncePod alone. */
export function accessModesErrors(modes: string[] | undefined, at: field.FieldPath, requiredDetail = ''): FieldError[] {
  const list = modes ?? [];
  const errs: FieldError[] = [];
  if (list.length === 0) errs.push(field.required(at, requiredDetail));
  let rwop = false;
  let other = false;
  for (const m of list) {
    if (!ACCESS_MODES.includes(m)) errs.push(field.notSupported(at, m, ACCESS_MODES));
    if (m === 'ReadWriteOncePod') rwop = true;
    else if (ACCESS_MODES.includes(m)) other = true;
  }
  if (rwop && other) errs.push(field.forbidden(at, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** ValidateClassName: a DNS subdomain (class names of storage and volume attributes). */
export { dns1123SubdomainErrors as classNameErrors } from '../api/validation/names.ts';

/** ValidatePositiveQuantityValue. */
export function positiveQuantityErrors(text: string, at: field.PathLike): FieldError[] {
  const q = parseQuantity(text);
  return q && quantitySign(q) <= 0 ? [field.invalid(at, text, 'must be greater than zero')] : [];
}

/** RWO,ROX,RWX,RWOP: the access modes column, each once, in that order. */
export function accessModesColumn(modes: string[] | undefined): string {
  const set = new Set(modes ?? []);
  return [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']]
    .filter(([m]) => set.has(m!))
    .map(([, s]) => s)
    .join(',');
}

type Requirement = { key?: string; operator?: string; values?: string[] };
type Term = { matchExpressions?: Requirement[]; matchFields?: Requirement[] };

/** validateNodeSelectorRequirement (label keys) and the metadata.name field rules. */
function requirementErrors(r: Requirement, at: field.FieldPath, fields: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(field.required(at.child('values'), 'must be specified when `operator` is \'In\' or \'NotIn\''));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(field.forbidden(at.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(field.required(at.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(field.invalid(at.child('operator'), r.operator ?? '', 'not a valid selector operator'));
  }
  if (fields) {
    if (r.key !== 'metadata.name') errs.push(field.invalid(at.child('key'), r.key ?? '', 'not a valid field selector key'));
  } else {
    for (const msg of qualifiedKeyErrors(r.key ?? '')) errs.push(field.invalid(at.child('key'), r.key ?? '', msg));
  }
  return errs;
}

/** ValidateNodeSelector: at least one term, each requirement well formed. */
export function nodeSelectorErrors(selector: { nodeSelectorTerms?: Term[] } | null | undefined, at: field.FieldPath): FieldError[] {
  const terms = selector?.nodeSelectorTerms ?? [];
  if (terms.length === 0) return [field.required(at.child('nodeSelectorTerms'), 'must have at least one node selector term')];
  const errs: FieldError[] = [];
  terms.forEach((t, i) => {
    const tp = at.child('nodeSelectorTerms').index(i);
    (t.matchExpressions ?? []).forEach((r, j) => errs.push(...requirementErrors(r, tp.child('matchExpressions').index(j), false)));
    (t.matchFields ?? []).forEach((r, j) => errs.push(...requirementErrors(r, tp.child('matchFields').index(j), true)));
  });
  return errs;
}

/** A namespace name reference (DNS label). */
export function namespaceNameErrors(ns: string, at: field.FieldPath): FieldError[] {
  return dns1123LabelErrors(ns).map((msg) => field.invalid(at, ns, msg));
}
