import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { compareSemver, parseSemver, type SemVer } from '../api/go/semver.ts';
import { configMapKeyErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { humanDuration } from '../registry/table.ts';
import * as field from '../registry/validation/field.ts';
import { leaseStrategyErrors } from './lease.ts';

type Spec = { leaseName?: string; binaryVersion?: string; emulationVersion?: string; strategy?: string; renewTime?: string; pingTime?: string };
const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const ZERO: SemVer = { major: 0, minor: 0, patch: 0, pre: [] };

/** Upstream's ValidateLeaseCandidateSpec (coordination.k8s.io/v1beta1). */
function validateSpec(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const at = field.path('spec');
  const errs: FieldError[] = [];
  if (!spec.leaseName) errs.push(field.required(at.child('leaseName')));
  let emulation = ZERO;
  if (spec.emulationVersion) {
    const parsed = parseSemver(spec.emulationVersion);
    if (parsed) emulation = parsed;
    else errs.push(field.invalid(at.child('emulationVersion'), spec.emulationVersion, 'must be a valid semantic version'));
  }
  let binary = ZERO;
  if (!spec.binaryVersion) {
    errs.push(field.required(at.child('binaryVersion')));
  } else {
    const parsed = parseSemver(spec.binaryVersion);
    if (parsed) binary = parsed;
    else errs.push(field.invalid(at.child('binaryVersion'), spec.binaryVersion, 'must be a valid semantic version'));
  }
  if (spec.binaryVersion && spec.emulationVersion && compareSemver(binary, emulation) < 0) {
    errs.push(field.invalid(at.child('binaryVersion'), spec.binaryVersion, 'must be greater than or equal to `emulationVersion`'));
  }
  if (!spec.strategy) {
    errs.push(field.required(at.child('strategy')));
  } else {
    if (spec.strategy === 'OldestEmulationVersion' && compareSemver(emulation, ZERO) === 0) {
      errs.push(field.required(at.child('emulationVersion'), "must be specified when `strategy` is 'OldestEmulationVersion'"));
    }
    errs.push(...leaseStrategyErrors(spec.strategy));
  }
  return errs;
}

/** coordination.k8s.io/v1beta1 LeaseCandidate: a candidate for coordinated leader election (off by default, as a beta API). */
export const leaseCandidates = defineKind({
  group: 'coordination.k8s.io',
  version: 'v1beta1',
  kind: 'LeaseCandidate',
  plural: 'leasecandidates',
  namespaced: true,
  schemaMessage: 'k8s.io.api.coordination.v1beta1.LeaseCandidate',
  // Beta APIs introduced after 1.22 are served only when --runtime-config turns them on.
  enabledByDefault: false,
  // Candidate names are config keys (they may carry dots and underscores).
  nameRule: configMapKeyErrors,
  tableColumns: [
    { name: 'LeaseName', type: 'string', description: 'The lease the candidate runs for.', cell: (o) => specOf(o).leaseName ?? '' },
    { name: 'BinaryVersion', type: 'string', description: "The candidate's binary version.", cell: (o) => specOf(o).binaryVersion ?? '' },
    { name: 'EmulationVersion', type: 'string', description: "The candidate's emulation version.", cell: (o) => specOf(o).emulationVersion ?? '' },
    {
      name: 'RenewTime',
      type: 'date',
      description: 'When the candidate last renewed itself.',
      cell: (o) => (specOf(o).renewTime ? humanDuration(Date.now() - Date.parse(specOf(o).renewTime!)) : '<unknown>'),
    },
  ],
  strategy: {
    validate: (_ctx, obj) => validateSpec(obj),
    validateUpdate: (_ctx, obj, old) => {
      const errs = validateSpec(obj);
      if ((specOf(obj).leaseName ?? '') !== (specOf(old).leaseName ?? '')) errs.push(field.immutable(field.path('spec', 'leaseName'), specOf(obj).leaseName ?? ''));
      return errs;
    },
  },
});
