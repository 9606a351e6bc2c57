import assert from 'node:assert/strict';
import { runtimeClasses } from '../../src/kinds/runtime-class.ts';
import { runKindSuite } from './kind-suite.ts';

const rc = (fields: Record<string, unknown>) => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', handler: 'runc', ...fields });

// Expectations from upstream's ValidateRuntimeClass(Update), core tolerations and resource rules (1.34).
runKindSuite({
  kind: runtimeClasses,
  valid: [
    { name: 'a handler only', object: rc({}) },
    {
      name: 'overhead and scheduling',
      object: rc({ overhead: { podFixed: { cpu: '250m', memory: '120Mi' } }, scheduling: { nodeSelector: { 'runtime/gvisor': 'true' }, tolerations: [{ key: 'gvisor', operator: 'Exists', effect: 'NoSchedule' }] } }),
    },
  ],
  invalid: [
    { name: 'a handler that is not a DNS label', object: rc({ handler: 'Run_C' }), errors: [{ field: 'handler', message: `Invalid value: "Run_C": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')` }] },
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
  ],
  defaults: [{ name: 'overhead quantities are canonical', object: rc({ overhead: { podFixed: { memory: '1024Mi', cpu: '0.5' } } }), expect: (o) => assert.deepEqual(o.overhead, { podFixed: { memory: '1Gi', cpu: '500m' } }) }],
  columns: [{ name: 'the handler', object: rc({}), cells: ['runc'] }],
});
