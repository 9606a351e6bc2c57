import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { NAME_DESCRIPTION } from '../registry/table.ts';
import * as field from '../registry/validation/field.ts';
import { mandatoryPriorityLevelErrors } from './flowcontrol-mandatory.ts';
import { flowcontrolConditionErrors, flowcontrolStatusSubresource } from './flowcontrol-rules.ts';
import { ageCell } from './columns.ts';

type Queuing = { queues?: number; handSize?: number; queueLengthLimit?: number };
type Limited = { nominalConcurrencyShares?: number; limitResponse?: { type?: string; queuing?: Queuing | null }; lendablePercent?: number; borrowingLimitPercent?: number };
type Exempt = { nominalConcurrencyShares?: number; lendablePercent?: number };
type Spec = { type?: string; limited?: Limited | null; exempt?: Exempt | null };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const TYPES = ['Exempt', 'Limited'];
const RESPONSES = ['Queue', 'Reject'];
const MAX_QUEUES = 10_000_000;
const MAX_HASH_BITS = 60;
/** v1beta3's marker that a zero share is meant; it must never reach a stored object. */
const PRESERVE_ZERO_SHARES = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';

/** The v1 defaults: nominalConcurrencyShares 30 only when unset (an explicit 0 stays), lendablePercent 0, queuing 64/8/50. */
function defaultSpec(obj: KubeObject): void {
  const spec = specOf(obj);
  if (spec.limited) {
    spec.limited.nominalConcurrencyShares ??= 30;
    spec.limited.lendablePercent ??= 0;
    const q = spec.limited.limitResponse?.queuing;
    if (q) {
      if (!q.handSize) q.handSize = 8;
      if (!q.queues) q.queues = 64;
      if (!q.queueLengthLimit) q.queueLengthLimit = 50;
    }
  }
  if (spec.exempt) {
    spec.exempt.nominalConcurrencyShares ??= 0;
    spec.exempt.lendablePercent ??= 0;
  }
}

function percentErrors(value: number | undefined, at: field.FieldPath): FieldError[] {
  return value !== undefined && !(value >= 0 && value <= 100) ? [field.invalid(at, value, 'must be between 0 and 100, inclusive')] : [];
}

function queuingErrors(q: Queuing, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const queues = q.queues ?? 0;
  const hand = q.handSize ?? 0;
  const limit = q.queueLengthLimit ?? 0;
  if (limit <= 0) errs.push(field.invalid(at.child('queueLengthLimit'), limit, 'must be positive'));
  if (queues <= 0) errs.push(field.invalid(at.child('queues'), queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(field.invalid(at.child('queues'), queues, `must not be greater than ${MAX_QUEUES}`));
  if (hand <= 0) errs.push(field.invalid(at.child('handSize'), hand, 'must be positive'));
  else if (hand > queues) errs.push(field.invalid(at.child('handSize'), hand, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * hand) > MAX_HASH_BITS) {
    errs.push(field.invalid(at.child('handSize'), hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}

function limitedErrors(l: Limited, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const shares = l.nominalConcurrencyShares ?? 0;
  // v1 lets a limited level have zero shares.
  if (shares < 0) errs.push(field.invalid(at.child('nominalConcurrencyShares'), shares, 'must be a non-negative integer'));
  const response = l.limitResponse ?? {};
  const rp = at.child('limitResponse');
  if (response.type === 'Reject') {
    if (response.queuing) errs.push(field.forbidden(rp.child('queuing'), 'must be nil if limited.limitResponse.type is not Limited'));
  } else if (response.type === 'Queue') {
    if (!response.queuing) errs.push(field.required(rp.child('queuing'), 'must not be empty if limited.limitResponse.type is Limited'));
    else errs.push(...queuingErrors(response.queuing, rp.child('queuing')));
  } else {
    errs.push(field.notSupported(rp.child('type'), response.type ?? '', RESPONSES));
  }
  errs.push(...percentErrors(l.lendablePercent, at.child('lendablePercent')));
  if (l.borrowingLimitPercent !== undefined && l.borrowingLimitPercent < 0) errs.push(field.invalid(at.child('borrowingLimitPercent'), l.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
  return errs;
}

/** Upstream's ValidatePriorityLevelConfiguration (v1 options). */
function validate(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const name = obj.metadata?.name ?? '';
  const at = field.path('spec');
  const errs: FieldError[] = [];
  if (Object.hasOwn(obj.metadata?.annotations ?? {}, PRESERVE_ZERO_SHARES)) {
    errs.push(field.forbidden(field.path('metadata', 'annotations'), `annotation '${PRESERVE_ZERO_SHARES}' is forbidden`));
  }
  const type = spec.type ?? '';
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(field.invalid(at.child('type'), type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === 'Exempt') {
    if (spec.limited) errs.push(field.forbidden(at.child('limited'), 'must be nil if the type is not Limited'));
    if (spec.exempt) {
      const shares = spec.exempt.nominalConcurrencyShares;
      if (shares !== undefined && shares < 0) errs.push(field.invalid(at.child('exempt', 'nominalConcurrencyShares'), shares, 'must be a non-negative integer'));
      errs.push(...percentErrors(spec.exempt.lendablePercent, at.child('exempt', 'lendablePercent')));
    }
  } else if (type === 'Limited') {
    if (spec.exempt) errs.push(field.forbidden(at.child('exempt'), 'must be nil if the type is Limited'));
    if (!spec.limited) errs.push(field.required(at.child('limited'), 'must not be empty when type is Limited'));
    else errs.push(...limitedErrors(spec.limited, at.child('limited')));
  } else {
    errs.push(field.notSupported(at.child('type'), type, TYPES));
  }
  errs.push(...mandatoryPriorityLevelErrors(name, obj.spec));
  errs.push(...flowcontrolConditionErrors(obj));
  return errs;
}

const orNone = (v: number | undefined) => (v === undefined ? '<none>' : v);

/** flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration: a priority level's share of concurrency and its queuing. */
export const priorityLevelConfigurations = defineKind({
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  kind: 'PriorityLevelConfiguration',
  plural: 'prioritylevelconfigurations',
  namespaced: false,
  schemaMessage: 'k8s.io.api.flowcontrol.v1.PriorityLevelConfiguration',
  tracksGeneration: true,
  subresources: [flowcontrolStatusSubresource()],
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Type', type: 'string', description: 'Exempt or Limited.', cell: (o) => specOf(o).type ?? '' },
    { name: 'NominalConcurrencyShares', type: 'string', description: 'The share of concurrency the level gets.', cell: (o) => orNone(specOf(o).limited?.nominalConcurrencyShares) },
    { name: 'Queues', type: 'string', description: 'The number of queues.', cell: (o) => orNone(specOf(o).limited?.limitResponse?.queuing?.queues) },
    { name: 'HandSize', type: 'string', description: 'The queues a flow is shuffle-sharded to.', cell: (o) => orNone(specOf(o).limited?.limitResponse?.queuing?.handSize) },
    { name: 'QueueLengthLimit', type: 'string', description: 'How many requests a queue holds.', cell: (o) => orNone(specOf(o).limited?.limitResponse?.queuing?.queueLengthLimit) },
    { name: 'Age', type: 'string', description: 'Time since the priority level was created.', cell: ageCell },
  ],
  strategy: {
    default: (_ctx, obj) => defaultSpec(obj),
    // Status is the APF controller's: a create starts it empty.
    prepareForCreate: (_ctx, obj) => {
      obj.status = {};
    },
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj) => validate(obj),
  },
});
