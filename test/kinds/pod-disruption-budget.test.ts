import assert from 'node:assert/strict';
import { podDisruptionBudgets } from '../../src/kinds/pod-disruption-budget.ts';
import { runKindSuite } from './kind-suite.ts';

const pdb = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', spec, ...extra });
const selector = { matchLabels: { app: 'web' } };

// Expectations from upstream's ValidatePodDisruptionBudget(Spec) and the apps int-or-percent rules (1.34).
runKindSuite({
  kind: podDisruptionBudgets,
  valid: [
    { name: 'minAvailable as a number', object: pdb({ minAvailable: 2, selector }) },
    { name: 'maxUnavailable as a percentage, with a policy', object: pdb({ maxUnavailable: '25%', selector, unhealthyPodEvictionPolicy: 'AlwaysAllow' }) },
    { name: '100% blocks all eviction', object: pdb({ minAvailable: '100%', selector: {} }) },
  ],
  invalid: [
    {
      name: 'both minAvailable and maxUnavailable',
      object: pdb({ minAvailable: 1, maxUnavailable: '10%', selector }),
      errors: [{ field: 'spec', message: 'Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":"10%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set' }],
    },
    {
      name: 'negative, not a percentage, over 100%',
      object: pdb({ minAvailable: -1 }),
      errors: [{ field: 'spec.minAvailable', message: 'Invalid value: -1: must be greater than or equal to 0' }],
    },
    {
      name: 'a string that is not a percentage',
      object: pdb({ maxUnavailable: 'half' }),
      errors: [{ field: 'spec.maxUnavailable', message: "Invalid value: \"half\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')" }],
    },
    { name: 'over 100%', object: pdb({ maxUnavailable: '150%' }), errors: [{ field: 'spec.maxUnavailable', message: 'Invalid value: "150%": must not be greater than 100%' }] },
    { name: 'an unknown eviction policy', object: pdb({ unhealthyPodEvictionPolicy: 'Never' }), errors: [{ field: 'spec.unhealthyPodEvictionPolicy', message: 'Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"' }] },
  ],
  updates: [
    { name: 'the spec may change, bumping the generation', object: pdb({ minAvailable: 1, selector }), change: (o) => ({ ...o, spec: { ...(o.spec as object), minAvailable: 2 } }), expect: (o) => assert.equal(o.metadata?.generation, 2) },
  ],
  statusUpdates: [
    {
      name: 'counts are not negative; conditions as metav1 judges them',
      object: pdb({ minAvailable: 1 }),
      change: (o) => ({ ...o, status: { disruptionsAllowed: -1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, conditions: [{ type: 'DisruptionAllowed', status: 'Maybe', reason: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] } }),
      errors: [
        { field: 'status.conditions[0].status', message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"' },
        { field: 'status.conditions[0].reason', message: 'Required value: must be set' },
        { field: 'status.disruptionsAllowed', message: 'Invalid value: -1: must be greater than or equal to 0' },
      ],
    },
    {
      name: 'the controller writes status; the spec stays',
      object: pdb({ minAvailable: 1 }),
      change: (o) => ({ ...o, spec: { minAvailable: 9 }, status: { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', lastTransitionTime: '2024-01-01T00:00:00Z', message: '' }] } }),
      expect: (o) => {
        assert.equal((o.status as { disruptionsAllowed: number }).disruptionsAllowed, 1);
        assert.equal((o.spec as { minAvailable: number }).minAvailable, 1);
      },
    },
  ],
  defaults: [{ name: 'status starts at zero, whatever the create says', object: pdb({ minAvailable: 1 }, { status: { disruptionsAllowed: 5, currentHealthy: 5, desiredHealthy: 1, expectedPods: 5 } }), expect: (o) => assert.deepEqual(o.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }) }],
  columns: [
    { name: 'minAvailable set', object: pdb({ minAvailable: 2, selector }), cells: ['2', 'N/A', 0] },
    { name: 'maxUnavailable set', object: pdb({ maxUnavailable: '25%', selector }), cells: ['N/A', '25%', 0] },
  ],
});
