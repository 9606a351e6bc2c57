import assert from 'node:assert/strict';
import { apiServices } from '../../src/kinds/api-service.ts';
import { runKindSuite } from './kind-suite.ts';

const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec });
// Each case names its own group: APIService names are fixed by the group version.
const remote = (group: string) => ({ group, version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics-server' }, insecureSkipTLSVerify: true });

// Expectations from kube-aggregator's ValidateAPIService(StatusUpdate), defaults and printer (1.34).
runKindSuite({
  kind: apiServices,
  valid: [
    { name: 'an extension API server', object: svc('v1beta1.metrics.k8s.io', remote('metrics.k8s.io')) },
    { name: 'a local core API', object: svc('v1.', { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }) },
  ],
  invalid: [
    {
      name: 'a name that is not <version>.<group>',
      object: svc('metrics', remote('metrics.k8s.io')),
      errors: [{ field: 'metadata.name', message: 'Invalid value: "metrics": must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"' }],
    },
    {
      name: 'group, version and priorities',
      object: svc('1x.', { version: '1x', groupPriorityMinimum: 0, versionPriority: 1001 }),
      errors: [
        { field: 'spec.group', message: 'Required value: only v1 may have an empty group and it better be legacy kube' },
        { field: 'spec.version', message: `Invalid value: "1x": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')` },
        { field: 'spec.groupPriorityMinimum', message: 'Invalid value: 0: must be positive and less than 20000' },
        { field: 'spec.versionPriority', message: 'Invalid value: 1001: must be positive and less than 1000' },
      ],
    },
    {
      name: 'a local API with a CA bundle and insecure TLS',
      object: svc('v1.example.com', { group: 'example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, caBundle: 'AAEC', insecureSkipTLSVerify: true }),
      errors: [
        { field: 'spec.caBundle', message: 'Invalid value: "3 bytes": local APIServices may not have a caBundle' },
        { field: 'spec.insecureSkipTLSVerify', message: 'Invalid value: true: local APIServices may not have insecureSkipTLSVerify' },
      ],
    },
    {
      name: 'a service without namespace or name, a bad port, insecure with a CA',
      object: svc('v1.example.com', { group: 'example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, caBundle: 'AAEC', insecureSkipTLSVerify: true, service: { port: 70000 } }),
      errors: [
        { field: 'spec.service.namespace', message: 'Required value' },
        { field: 'spec.service.name', message: 'Required value' },
        { field: 'spec.service.port', message: 'Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive' },
        { field: 'spec.insecureSkipTLSVerify', message: 'Invalid value: true: may not be true if caBundle is present' },
      ],
    },
  ],
  statusUpdates: [
    {
      name: 'condition statuses',
      object: svc('v1beta1.status.example.com', remote('status.example.com')),
      change: (o) => ({ ...o, status: { conditions: [{ type: 'Available', status: 'Maybe' }] } }),
      errors: [{ field: 'status.conditions[0].status', message: 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"' }],
    },
  ],
  defaults: [{ name: 'the service port defaults to 443', object: svc('v1beta1.defaults.example.com', remote('defaults.example.com')), expect: (o) => assert.equal((o.spec as { service: { port: number } }).service.port, 443) }],
  columns: [
    { name: 'a service, availability unknown', object: svc('v1beta1.columns.example.com', remote('columns.example.com')), cells: ['kube-system/metrics-server', 'Unknown'] },
    { name: 'local', object: svc('v1.local.example.com', { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }), cells: ['Local', 'Unknown'] },
  ],
});
