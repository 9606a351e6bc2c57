import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import { limitRanges } from '../../src/kinds/limit-range.ts';
import { toTable } from '../../src/registry/table.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const lr = (limits: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'LimitRange', spec: { limits } });
const limitsOf = (o: KubeObject) => (o.spec as { limits: Record<string, unknown>[] }).limits;
const QUALIFIED_NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

// Expectations from upstream's ValidateLimitRange, the limitrange strategy and the v1 LimitRangeItem defaults (1.34).
runKindSuite({
  kind: limitRanges,
  valid: [
    { name: 'container limits', object: lr([{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '2', memory: '1Gi' }, default: { cpu: '500m' }, defaultRequest: { cpu: '200m' }, maxLimitRequestRatio: { cpu: '10' } }]) },
    { name: 'pod and claim limits', object: lr([{ type: 'Pod', max: { cpu: '4' } }, { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }]) },
    { name: 'a claim item with only a maximum', object: lr([{ type: 'PersistentVolumeClaim', max: { storage: '10Gi', 'example.com/iops': '100' } }]) },
    { name: 'a qualified type takes any qualified resource', object: lr([{ type: 'example.com/widget', max: { 'example.com/gears': '3', storage: '1Gi' }, default: { cpu: '1' } }]) },
    // Defaults copy max into default and defaultRequest, so a non-overcommitable resource is equal in both.
    { name: 'extended resources and huge pages from max alone', object: lr([{ type: 'Container', max: { 'example.com/gpu': '2', 'hugepages-2Mi': '4Mi', 'kubernetes.io/widget': '1' } }]) },
    { name: 'a ratio of exactly max/min', object: lr([{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '250m' }, maxLimitRequestRatio: { cpu: '2500m' } }]) },
    { name: 'no limits at all', object: lr([]) },
  ],
  invalid: [
    {
      name: 'min above max, defaults out of range',
      object: lr([{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' }, default: { cpu: '3' }, defaultRequest: { cpu: '4' } }]),
      errors: [
        { field: 'spec.limits[0].min[cpu]', message: 'Invalid value: "2": min value 2 is greater than max value 1' },
        { field: 'spec.limits[0].defaultRequest[cpu]', message: 'Invalid value: "4": default request value 4 is greater than max value 1' },
        { field: 'spec.limits[0].defaultRequest[cpu]', message: 'Invalid value: "4": default request value 4 is greater than default limit value 3' },
        // The bad value shown is the max, not the default.
        { field: 'spec.limits[0].default[cpu]', message: 'Invalid value: "1": default value 3 is greater than max value 1' },
      ],
    },
    {
      name: 'defaults below min (the min is the value shown for default)',
      object: lr([{ type: 'Container', min: { memory: '2Gi' }, default: { memory: '1Gi' }, defaultRequest: { memory: '1Gi' } }]),
      errors: [
        { field: 'spec.limits[0].defaultRequest[memory]', message: 'Invalid value: "1Gi": min value 2Gi is greater than default request value 1Gi' },
        { field: 'spec.limits[0].default[memory]', message: 'Invalid value: "2Gi": min value 2Gi is greater than default value 1Gi' },
      ],
    },
    {
      name: 'messages print quantities in canonical form',
      object: lr([{ type: 'Pod', min: { cpu: '1000m', memory: '1024Mi' }, max: { cpu: '0.5', memory: '0.5Gi' } }]),
      errors: [
        { field: 'spec.limits[0].min[cpu]', message: 'Invalid value: "1": min value 1 is greater than max value 500m' },
        { field: 'spec.limits[0].min[memory]', message: 'Invalid value: "1Gi": min value 1Gi is greater than max value 512Mi' },
      ],
    },
    {
      name: 'ratios below 1 and above max/min',
      object: lr([{ type: 'Container', min: { memory: '1Gi', cpu: '100m' }, max: { memory: '2Gi', cpu: '250m' }, maxLimitRequestRatio: { memory: '3', cpu: '2600m', 'ephemeral-storage': '500m' } }]),
      errors: [
        { field: 'spec.limits[0].maxLimitRequestRatio[cpu]', message: 'Invalid value: "2600m": ratio 2600m is greater than max/min = 2.500000' },
        { field: 'spec.limits[0].maxLimitRequestRatio[ephemeral-storage]', message: 'Invalid value: "500m": ratio 500m is less than 1' },
        { field: 'spec.limits[0].maxLimitRequestRatio[memory]', message: 'Invalid value: "3": ratio 3 is greater than max/min = 2.000000' },
      ],
    },
    {
      name: 'non-overcommitable resources need default == defaultRequest',
      object: lr([{ type: 'Container', default: { 'example.com/gpu': '2', 'hugepages-2Mi': '4Mi', cpu: '2' }, defaultRequest: { 'example.com/gpu': '1', 'hugepages-2Mi': '2Mi', cpu: '1' } }]),
      errors: [
        { field: 'spec.limits[0].defaultRequest[example.com/gpu]', message: 'Invalid value: "1": default value 2 must equal to defaultRequest value 1 in example.com/gpu' },
        { field: 'spec.limits[0].defaultRequest[hugepages-2Mi]', message: 'Invalid value: "2Mi": default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi' },
      ],
    },
    {
      name: 'pod items take no defaults; types; duplicates',
      object: lr([{ type: 'Pod', default: { cpu: '1' }, defaultRequest: { cpu: '1' } }, { type: 'Pod' }, { type: 'Widget' }, {}]),
      errors: [
        { field: 'spec.limits[0].default', message: "Forbidden: may not be specified when `type` is 'Pod'" },
        { field: 'spec.limits[0].defaultRequest', message: "Forbidden: may not be specified when `type` is 'Pod'" },
        { field: 'spec.limits[1].type', message: 'Duplicate value: "Pod"' },
        { field: 'spec.limits[2].type', message: 'Invalid value: "Widget": must be a standard limit type or fully qualified' },
        { field: 'spec.limits[3].type', message: 'Invalid value: "": name part must be non-empty' },
        { field: 'spec.limits[3].type', message: `Invalid value: "": name part ${QUALIFIED_NAME_RULE}` },
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
    {
      name: 'resource names by item type',
      object: lr([
        { type: 'Pod', min: { widgets: '1', 'requests.example.com/gpu': '1', 'bad name': '1' } },
        { type: 'PersistentVolumeClaim', min: { storage: '1Gi', widgets: '1' } },
      ]),
      errors: [
        { field: 'spec.limits[0].min[bad name]', message: `Invalid value: "bad name": name part ${QUALIFIED_NAME_RULE}` },
        { field: 'spec.limits[0].min[bad name]', message: 'Invalid value: "bad name": must be a standard resource for containers' },
        { field: 'spec.limits[0].min[requests.example.com/gpu]', message: `Invalid value: "requests.example.com/gpu": doesn't follow extended resource name standard` },
        { field: 'spec.limits[0].min[widgets]', message: 'Invalid value: "widgets": must be a standard resource type or fully qualified' },
        { field: 'spec.limits[0].min[widgets]', message: 'Invalid value: "widgets": must be a standard resource for containers' },
        // Other types take any standard or qualified name, but no container check.
        { field: 'spec.limits[1].min[widgets]', message: 'Invalid value: "widgets": must be a standard resource type or fully qualified' },
      ],
    },
  ],
  updates: [
    {
      name: 'an update is validated as a create',
      object: lr([{ type: 'Pod', max: { cpu: '2' } }]),
      change: (o) => ({ ...o, spec: { limits: [{ type: 'Pod', max: { cpu: '2' }, min: { cpu: '3' } }] } }),
      errors: [{ field: 'spec.limits[0].min[cpu]', message: 'Invalid value: "3": min value 3 is greater than max value 2' }],
    },
    {
      name: 'an update is defaulted',
      object: lr([{ type: 'Pod', max: { cpu: '2' } }]),
      change: (o) => ({ ...o, spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] } }),
      expect: (o) => assert.deepEqual(limitsOf(o), [{ type: 'Container', max: { cpu: '2' }, default: { cpu: '2' }, defaultRequest: { cpu: '2' } }]),
    },
  ],
  defaults: [
    {
      name: 'container defaults come from max, and requests from defaults then min',
      object: lr([{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }]),
      expect: (o) => assert.deepEqual(limitsOf(o), [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, default: { cpu: '2' }, defaultRequest: { cpu: '2', memory: '64Mi' } }]),
    },
    {
      name: 'given defaults win over max and min',
      object: lr([{ type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '500m' } }]),
      expect: (o) => assert.deepEqual(limitsOf(o)[0], { type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '500m' } }),
    },
    {
      name: 'quantities are stored in canonical form, copies too',
      object: lr([{ type: 'Container', max: { cpu: '1000m', memory: '1024Mi' } }]),
      expect: (o) => assert.deepEqual(limitsOf(o)[0], { type: 'Container', max: { cpu: '1', memory: '1Gi' }, default: { cpu: '1', memory: '1Gi' }, defaultRequest: { cpu: '1', memory: '1Gi' } }),
    },
    {
      name: 'other types get no defaults; empty maps are left off',
      object: lr([{ type: 'Pod', max: { cpu: '2' }, default: {}, defaultRequest: {} }, { type: 'PersistentVolumeClaim', max: { storage: '1Gi' }, min: {} }, { type: 'Container' }]),
      expect: (o) => assert.deepEqual(limitsOf(o), [{ type: 'Pod', max: { cpu: '2' } }, { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } }, { type: 'Container' }]),
    },
  ],
});

describe('LimitRange strategy and table', () => {
  let registry: TestRegistry;
  before(async () => {
    registry = await openTestRegistry();
  });
  after(async () => {
    await registry.close();
  });

  test('a limit range sent without name or generateName is named with a UUID', async () => {
    const stored = await registry.store('limitranges').create(testContext(), 'default', lr([{ type: 'Pod', max: { cpu: '1' } }]));
    assert.match(stored.object.metadata.name, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  test('generateName still applies', async () => {
    const stored = await registry.store('limitranges').create(testContext(), 'default', { ...lr([]), metadata: { generateName: 'limits-' } });
    assert.match(stored.object.metadata.name, /^limits-[a-z0-9]{5}$/);
  });

  test('a PUT to a missing limit range creates it', async () => {
    const { stored, created } = await registry.store('limitranges').replace(testContext(), 'default', 'put-created', { ...lr([{ type: 'Pod', max: { cpu: '1' } }]), metadata: { name: 'put-created' } });
    assert.equal(created, true);
    assert.equal(stored.object.metadata.name, 'put-created');
  });

  test('the default table: Name and Created At (an RFC 3339 date)', async () => {
    const stored = await registry.store('limitranges').create(testContext(), 'default', { ...lr([]), metadata: { name: 'table' } });
    const table = toTable(limitRanges, [stored.object]);
    assert.deepEqual(
      table.columnDefinitions.map((c) => [c.name, c.type]),
      [
        ['Name', 'string'],
        ['Created At', 'date'],
      ],
    );
    assert.deepEqual(table.rows[0]!.cells, ['table', stored.object.metadata.creationTimestamp]);
  });

  test('short name limits, no categories, no status subresource, default delete answer', () => {
    assert.deepEqual(limitRanges.shortNames, ['limits']);
    assert.deepEqual(limitRanges.categories, []);
    assert.deepEqual(limitRanges.subresources, []);
    assert.equal(limitRanges.returnDeletedObject, false);
    assert.deepEqual(limitRanges.fieldSelectors, {});
  });
});
