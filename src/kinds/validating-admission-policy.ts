import type { FieldError } from '../api/errors.ts';
import { goStruct } from '../api/go/values.ts';
import type { KubeObject } from '../api/types.ts';
import { dns1035LabelErrors, dns1123SubdomainErrors, qualifiedNameErrors } from '../api/validation/names.ts';
import { defineKind, type SubresourceDefinition } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import { conditionsErrors, type ConditionValue } from '../registry/validation/conditions.ts';
import * as field from '../registry/validation/field.ts';
import { celErrors, type CelDeclarations } from './admission-cel.ts';
import { defaultMatchResources, FAILURE_POLICIES, matchConditionsErrors, matchResourcesErrors, type MatchCondition, type MatchResources } from './admission-rules.ts';

type Validation = { expression?: string; message?: string; reason?: string; messageExpression?: string };
type Variable = { name?: string; expression?: string };
type AuditAnnotation = { key?: string; valueExpression?: string };
type ParamKind = { apiVersion?: string; kind?: string };
type Spec = {
  paramKind?: ParamKind | null;
  matchConstraints?: MatchResources | null;
  validations?: Validation[];
  failurePolicy?: string;
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
};
type Status = { typeChecking?: { expressionWarnings?: { fieldRef?: string; warning?: string }[] } | null; conditions?: ConditionValue[] };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION = 5 * 1024;
const CEL_IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** "group/version", "version", "" and "/" (nothing) parse; more slashes do not. */
function paramKindErrors(pk: ParamKind, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = pk.apiVersion ?? '';
  if (!apiVersion) errs.push(field.required(at.child('apiVersion')));
  else if (apiVersion.split('/').length > 2) errs.push(field.invalid(at.child('apiVersion'), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  else {
    const [group, version] = apiVersion === '/' ? ['', ''] : apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
    if (group) {
      const problems = dns1123SubdomainErrors(group);
      if (problems.length) errs.push(field.invalid(at.child('apiVersion'), group, problems.join(',')));
    }
    if (!version) errs.push(field.invalid(at.child('apiVersion'), apiVersion, 'version must be specified'));
    else {
      const problems = dns1035LabelErrors(version);
      if (problems.length) errs.push(field.invalid(at.child('apiVersion'), version, problems.join(',')));
    }
  }
  const kind = pk.kind ?? '';
  if (!kind) errs.push(field.required(at.child('kind')));
  else {
    const problems = dns1035LabelErrors(kind.toLowerCase());
    if (problems.length) errs.push(field.invalid(at.child('kind'), kind, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
  }
  return errs;
}

function validationErrors(v: Validation, decls: CelDeclarations, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  // The untrimmed text is compiled, so positions count from it.
  if (!(v.expression ?? '').trim()) errs.push(field.required(at.child('expression'), 'expression is not specified'));
  else errs.push(...celErrors(v.expression!, at.child('expression'), decls, 'bool'));
  const messageExpression = v.messageExpression ?? '';
  if (messageExpression.length > 0 && messageExpression.trim() === '') errs.push(field.invalid(at.child('messageExpression'), messageExpression, 'must be non-empty if specified'));
  // Message expressions see no authorizer.
  else if (messageExpression.trim() !== '') errs.push(...celErrors(messageExpression, at.child('messageExpression'), { ...decls, authorizer: false }, 'string'));
  const message = v.message ?? '';
  if (message.length > 0 && message.trim() === '') errs.push(field.invalid(at.child('message'), message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(message.trim())) errs.push(field.invalid(at.child('message'), message, 'message must not contain line breaks'));
  if (v.reason !== undefined && !REASONS.includes(v.reason)) errs.push(field.notSupported(at.child('reason'), v.reason, REASONS));
  return errs;
}

function variableErrors(v: Variable, decls: CelDeclarations, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = v.name ?? '';
  if (name.trim() === '') errs.push(field.required(at.child('name'), 'name is not specified'));
  else if (!CEL_IDENT.test(name) || CEL_RESERVED.has(name)) errs.push(field.invalid(at.child('name'), name, 'name is not a valid CEL identifier'));
  const expression = v.expression ?? '';
  if (expression.trim() === '') errs.push(field.required(at.child('expression'), 'expression is not specified'));
  else errs.push(...celErrors(expression, at.child('expression'), decls, 'any'));
  return errs;
}

function auditAnnotationErrors(a: AuditAnnotation, policyName: string, decls: CelDeclarations, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const key = a.key ?? '';
  // The key is the second half of the annotation `<policy name>/<key>`.
  if (policyName) {
    const full = `${policyName}/${key}`;
    for (const msg of qualifiedNameErrors(full)) errs.push(field.invalid(at.child('key'), full, msg));
  } else {
    errs.push(field.invalid(at.child('key'), key, 'requires metadata.name be non-empty'));
  }
  const value = (a.valueExpression ?? '').trim();
  if (!value) errs.push(field.required(at.child('valueExpression'), 'valueExpression is not specified'));
  else if (Buffer.byteLength(value) > MAX_VALUE_EXPRESSION) errs.push(field.required(at.child('valueExpression'), `must not exceed ${MAX_VALUE_EXPRESSION} bytes in length`));
  // The trimmed text is compiled; the error shows the field as written.
  else errs.push(...celErrors(value, at.child('valueExpression'), decls, 'string-or-null', a.valueExpression));
  return errs;
}

/** Upstream's validateValidatingAdmissionPolicySpec; `ignoreMatchConditions` on updates that keep them and the param kind. */
function validate(obj: KubeObject, ignoreMatchConditions = false): FieldError[] {
  const spec = specOf(obj);
  const at = field.path('spec');
  const errs: FieldError[] = [];
  const params = !!spec.paramKind;
  if (spec.failurePolicy === undefined) errs.push(field.required(at.child('failurePolicy')));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy)) errs.push(field.notSupported(at.child('failurePolicy'), spec.failurePolicy, FAILURE_POLICIES));
  if (spec.paramKind) errs.push(...paramKindErrors(spec.paramKind, at.child('paramKind')));
  if (!spec.matchConstraints) errs.push(field.required(at.child('matchConstraints')));
  else {
    errs.push(...matchResourcesErrors(spec.matchConstraints, at.child('matchConstraints')));
    // At least one resource rule gives the expressions their types.
    if (!spec.matchConstraints.resourceRules?.length) errs.push(field.required(at.child('matchConstraints', 'resourceRules')));
  }
  if (!ignoreMatchConditions) errs.push(...matchConditionsErrors(spec.matchConditions, at.child('matchConditions'), params));
  // Variables compose: `variables` exists only in a policy that has some, and each variable sees those before it.
  const variables = spec.variables ?? [];
  const names = variables.map((v) => v.name ?? '');
  variables.forEach((v, i) => errs.push(...variableErrors(v, { params, authorizer: true, variables: names.slice(0, i) }, at.child('variables').index(i))));
  const decls: CelDeclarations = { params, authorizer: true, ...(variables.length ? { variables: names } : {}) };
  const validations = spec.validations ?? [];
  const annotations = spec.auditAnnotations ?? [];
  if (validations.length === 0 && annotations.length === 0) {
    errs.push(field.required(at.child('validations'), 'validations or auditAnnotations must contain at least one item'));
    errs.push(field.required(at.child('auditAnnotations'), 'validations or auditAnnotations must contain at least one item'));
  } else {
    validations.forEach((v, i) => errs.push(...validationErrors(v, decls, at.child('validations').index(i))));
    if (annotations.length > MAX_AUDIT_ANNOTATIONS) {
      const shown = annotations.map((a) => goStruct({ Key: a.key ?? '', ValueExpression: a.valueExpression ?? '' }));
      errs.push(field.invalid(at.child('auditAnnotations'), shown, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
    }
    const keys = new Set<string>();
    annotations.forEach((a, i) => {
      errs.push(...auditAnnotationErrors(a, obj.metadata?.name ?? '', decls, at.child('auditAnnotations').index(i)));
      if (keys.has(a.key ?? '')) errs.push(field.duplicate(at.child('auditAnnotations').index(i).child('key'), a.key ?? ''));
      keys.add(a.key ?? '');
    });
  }
  return errs;
}

function validateStatus(obj: KubeObject): FieldError[] {
  const status = (obj.status ?? {}) as Status;
  const errs: FieldError[] = [];
  (status.typeChecking?.expressionWarnings ?? []).forEach((w, i) => {
    const at = field.path('status', 'typeChecking', 'expressionWarnings').index(i);
    if (!w.warning) errs.push(field.required(at.child('warning')));
    if (!(w.fieldRef ?? '').trim()) errs.push(field.required(at.child('fieldRef')));
  });
  return [...errs, ...conditionsErrors(status.conditions, field.path('status', 'conditions'))];
}

/** Metadata a status write leaves as stored (upstream's ResetObjectMetaForStatus). */
const STATUS_KEEPS_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/** The status subresource: only status (and system metadata) changes; the user's metadata stays. */
function policyStatus(): SubresourceDefinition {
  const common = statusSubresource().strategy!;
  return statusSubresource({
    validateUpdate: (_ctx, obj) => validateStatus(obj),
    prepareForUpdate: (ctx, obj, old) => {
      const next = common.prepareForUpdate(ctx, obj, old);
      const meta = (next.metadata ??= {}) as Record<string, unknown>;
      const before = (old.metadata ?? {}) as Record<string, unknown>;
      for (const key of STATUS_KEEPS_METADATA) {
        if (before[key] === undefined) delete meta[key];
        else meta[key] = before[key];
      }
      return next;
    },
  });
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy: CEL rules that accept or refuse requests. */
export const validatingAdmissionPolicies = defineKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingAdmissionPolicy',
  plural: 'validatingadmissionpolicies',
  namespaced: false,
  categories: ['api-extensions'],
  schemaMessage: 'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicy',
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  subresources: [policyStatus()],
  tableColumns: [
    { name: 'Validations', type: 'integer', description: 'How many validation rules the policy has.', cell: (o) => (specOf(o).validations ?? []).length },
    { name: 'ParamKind', type: 'string', description: 'The kind of the parameter objects.', cell: (o) => (specOf(o).paramKind ? `${specOf(o).paramKind!.apiVersion ?? ''}/${specOf(o).paramKind!.kind ?? ''}` : '<unset>') },
  ],
  strategy: {
    default: (_ctx, obj) => {
      const spec = ((obj.spec as Spec | undefined) ??= {}) as Spec;
      spec.failurePolicy ??= 'Fail';
      defaultMatchResources(spec.matchConstraints);
    },
    // Status is the type checker's: a create starts it empty.
    prepareForCreate: (_ctx, obj) => {
      obj.status = {};
    },
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj, old) => {
      // Stored match conditions are not judged again while they and the param kind stay as they were.
      const same = canonicalJson(specOf(obj).matchConditions ?? null) === canonicalJson(specOf(old).matchConditions ?? null) && canonicalJson(specOf(obj).paramKind ?? null) === canonicalJson(specOf(old).paramKind ?? null);
      return validate(obj, same);
    },
  },
});
