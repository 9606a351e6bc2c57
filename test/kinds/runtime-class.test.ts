import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runtimeClasses } from '../../src/kinds/runtime-class.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const rc = (fields: Record<string, unknown>) => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', handler: 'runc', ...fields });
const LABEL_MSG = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;

// Expectations from upstream's ValidateRuntimeClass(Update), core tolerations and resource rules, strategy and table (1.34).
runKindSuite({
  kind: runtimeClasses,
  valid: [
    { name: 'a handler only', object: rc({}) },
    {
      name: 'overhead and scheduling',
      object: rc({ overhead: { podFixed: { cpu: '250m', memory: '120Mi' } }, scheduling: { nodeSelector: { 'runtime/gvisor': 'true' }, tolerations: [{ key: 'gvisor', operator: 'Exists', effect: 'NoSchedule' }] } }),
    },
    { name: 'whole huge pages beside memory', object: rc({ overhead: { podFixed: { memory: '1Gi', 'hugepages-2Mi': '4Mi' } } }) },
  ],
  invalid: [
    { name: 'a handler that is not a DNS label', object: rc({ handler: 'Run_C' }), errors: [{ field: 'handler', message: `Invalid value: "Run_C": ${LABEL_MSG}` }] },
    { name: 'a missing handler', object: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass' }, errors: [{ field: 'handler', message: `Invalid value: "": ${LABEL_MSG}` }] },
    {
      name: 'overhead: negative, unknown resource',
      object: rc({ overhead: { podFixed: { cpu: '-1', gpus: '1' } } }),
      errors: [
        { field: 'overhead.limits[cpu]', message: 'Invalid value: "-1": must be greater than or equal to 0' },
        { field: 'overhead.limits[gpus]', message: 'Invalid value: "gpus": must be a standard resource type or fully qualified' },
        { field: 'overhead.limits[gpus]', message: 'Invalid value: "gpus": must be a standard resource for containers' },
      ],
    },
    {
      name: 'overhead: huge pages that are not whole pages, and without cpu or memory',
      object: rc({ overhead: { podFixed: { 'hugepages-2Mi': '3Mi' } } }),
      errors: [
        { field: 'overhead.limits[hugepages-2Mi]', message: 'Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi' },
        { field: 'overhead', message: 'Forbidden: HugePages require cpu or memory' },
      ],
    },
    {
      name: 'scheduling: node selector labels',
      object: rc({ scheduling: { nodeSelector: { 'bad key!': 'v', ok: 'bad value!' } } }),
      errors: [
        { field: 'scheduling.nodeSelector', message: `Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')` },
        { field: 'scheduling.nodeSelector', message: `Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')` },
      ],
    },
    {
      name: 'tolerations: empty key needs Exists, seconds need NoExecute, effects, duplicates',
      object: rc({ scheduling: { tolerations: [{ operator: 'Equal', value: 'x' }, { key: 'a', effect: 'NoSchedule', tolerationSeconds: 5 }, { key: 'b', effect: 'Sometimes' }, { key: 'b', effect: 'Sometimes' }] } }),
      errors: [
        { field: 'scheduling.tolerations[0].operator', message: 'Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"' },
        { field: 'scheduling.tolerations[1].effect', message: "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set" },
        { field: 'scheduling.tolerations[2].effect', message: 'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"' },
        { field: 'scheduling.tolerations[3].effect', message: 'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"' },
        { field: 'scheduling.tolerations[3]', message: 'Duplicate value: {"Key":"b","Operator":"","Value":"","Effect":"Sometimes","TolerationSeconds":null}' },
      ],
    },
  ],
  updates: [
    { name: 'the handler is immutable', object: rc({}), change: (o) => ({ ...o, handler: 'crun' }), errors: [{ field: 'handler', message: 'Invalid value: "crun": field is immutable' }] },
    { name: 'overhead may change', object: rc({}), change: (o) => ({ ...o, overhead: { podFixed: { cpu: '1' } } }), expect: (o) => assert.deepEqual(o.overhead, { podFixed: { cpu: '1' } }) },
    {
      name: 'an update is judged as a create too',
      object: rc({}),
      change: (o) => ({ ...o, scheduling: { tolerations: [{ key: 'k', operator: 'Sometimes' }] } }),
      errors: [{ field: 'scheduling.tolerations[0].operator', message: 'Unsupported value: "Sometimes": supported values: "Equal", "Exists"' }],
    },
  ],
  defaults: [{ name: 'overhead quantities are canonical', object: rc({ overhead: { podFixed: { memory: '1024Mi', cpu: '0.5' } } }), expect: (o) => assert.deepEqual(o.overhead, { podFixed: { memory: '1Gi', cpu: '500m' } }) }],
  columns: [{ name: 'the handler', object: rc({}), cells: ['runc'] }],
});

describe('RuntimeClass: the rest of upstream strategy', () => {
  let registry: TestRegistry;
  const store = () => registry.store('runtimeclasses', 'node.k8s.io');
  before(async () => {
    registry = await openTestRegistry();
  });
  after(async () => {
    await registry.close();
  });

  test('a PUT of a missing RuntimeClass creates it', async () => {
    const { created } = await store().replace(testContext(), '', 'put-created', { ...rc({}), metadata: { name: 'put-created' } });
    assert.equal(created, true);
  });

  test('a PUT of an existing one must name the resourceVersion it replaces', async () => {
    await store().create(testContext(), '', { ...rc({}), metadata: { name: 'put-unconditional' } });
    await assert.rejects(store().replace(testContext(), '', 'put-unconditional', { ...rc({}), metadata: { name: 'put-unconditional' } }), (err: { code?: number; message?: string }) => {
      assert.equal(err.code, 422);
      assert.match(String(err.message), /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
      return true;
    });
  });

  test('deprecated node labels in the node selector are warned about, on create and update', async () => {
    const ctx = testContext();
    const body = { ...rc({ scheduling: { nodeSelector: { 'beta.kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux', 'failure-domain.beta.kubernetes.io/zone': 'a' } } }), metadata: { name: 'deprecated-labels' } };
    await store().create(ctx, '', body);
    const expected = ['scheduling.nodeSelector: deprecated since v1.14; use "kubernetes.io/arch" instead', 'scheduling.nodeSelector: deprecated since v1.17; use "topology.kubernetes.io/zone" instead'];
    assert.deepEqual(ctx.warnings, expected);
    const again = testContext();
    await store().update(again, '', 'deprecated-labels', { build: (o) => ({ ...o!, overhead: { podFixed: { cpu: '1' } } }) });
    assert.deepEqual(again.warnings, expected);
  });
});
