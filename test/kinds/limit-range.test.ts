import assert from 'node:assert/strict';
import { limitRanges } from '../../src/kinds/limit-range.ts';
import { runKindSuite } from './kind-suite.ts';

const lr = (limits: unknown[]) => ({ apiVersion: 'v1', kind: 'LimitRange', spec: { limits } });

// Expectations from upstream's ValidateLimitRange and the v1 LimitRangeItem defaults (1.34).
runKindSuite({
  kind: limitRanges,
  valid: [
    { name: 'container limits', object: lr([{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '2', memory: '1Gi' }, default: { cpu: '500m' }, defaultRequest: { cpu: '200m' }, maxLimitRequestRatio: { cpu: '10' } }]) },
    { name: 'pod and claim limits', object: lr([{ type: 'Pod', max: { cpu: '4' } }, { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }]) },
  ],
  invalid: [
    {
      name: 'min above max, defaults out of range',
      object: lr([{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' }, default: { cpu: '3' }, defaultRequest: { cpu: '4' } }]),
      errors: [
        { field: 'spec.limits[0].min[cpu]', message: 'Invalid value: "2": min value 2 is greater than max value 1' },
        { field: 'spec.limits[0].defaultRequest[cpu]', message: 'Invalid value: "4": default request value 4 is greater than max value 1' },
        { field: 'spec.limits[0].defaultRequest[cpu]', message: 'Invalid value: "4": default request value 4 is greater than default limit value 3' },
        { field: 'spec.limits[0].default[cpu]', message: 'Invalid value: "1": default value 3 is greater than max value 1' },
      ],
    },
    {
      name: 'ratios below 1 and above max/min',
      object: lr([{ type: 'Container', min: { memory: '1Gi' }, max: { memory: '2Gi' }, maxLimitRequestRatio: { memory: '3', cpu: '500m' } }]),
      errors: [
        { field: 'spec.limits[0].maxLimitRequestRatio[cpu]', message: 'Invalid value: "500m": ratio 500m is less than 1' },
        { field: 'spec.limits[0].maxLimitRequestRatio[memory]', message: 'Invalid value: "3": ratio 3 is greater than max/min = 2.000000' },
      ],
    },
    {
      name: 'pod items take no defaults; types; duplicates',
      object: lr([{ type: 'Pod', default: { cpu: '1' } }, { type: 'Pod' }, { type: 'Widget' }]),
      errors: [
        { field: 'spec.limits[0].default', message: "Forbidden: may not be specified when `type` is 'Pod'" },
        { field: 'spec.limits[1].type', message: 'Duplicate value: "Pod"' },
        { field: 'spec.limits[2].type', message: 'Invalid value: "Widget": must be a standard limit type or fully qualified' },
      ],
    },
    {
      name: 'a claim item needs a storage bound; container resource names',
      object: lr([{ type: 'PersistentVolumeClaim', max: { cpu: '1' } }, { type: 'Container', max: { storage: '1Gi' } }]),
      errors: [
        { field: 'spec.limits[0].limits', message: 'Required value: either minimum or maximum storage value is required, but neither was provided' },
        // Defaulting copied max into default and defaultRequest first, as upstream decodes before validating.
        { field: 'spec.limits[1].max[storage]', message: 'Invalid value: "storage": must be a standard resource for containers' },
        { field: 'spec.limits[1].default[storage]', message: 'Invalid value: "storage": must be a standard resource for containers' },
        { field: 'spec.limits[1].defaultRequest[storage]', message: 'Invalid value: "storage": must be a standard resource for containers' },
      ],
    },
  ],
  defaults: [
    {
      name: 'container defaults come from max, and requests from defaults then min',
      object: lr([{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }]),
      expect: (o) => assert.deepEqual((o.spec as { limits: unknown[] }).limits, [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, default: { cpu: '2' }, defaultRequest: { cpu: '2', memory: '64Mi' } }]),
    },
  ],
  columns: [{ name: 'Name and Created At only', object: lr([]), cells: [] }],
});
