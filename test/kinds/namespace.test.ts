import assert from 'node:assert/strict';
import { namespaces } from '../../src/kinds/namespace.ts';
import { runKindSuite } from './kind-suite.ts';

const LABEL_RULE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NOT_QUALIFIED = 'name is neither a standard finalizer name nor is it fully qualified';

// Expectations from upstream's ValidateNamespace / ValidateNamespaceUpdate and the namespace strategy (1.34).
runKindSuite({
  kind: namespaces,
  valid: [
    { name: 'a DNS label name', object: { metadata: { name: 'team-a' } } },
    { name: 'standard and qualified finalizers', object: { spec: { finalizers: ['kubernetes', 'example.com/cleanup'] } } },
  ],
  invalid: [
    { name: 'a name that is no DNS label', object: { metadata: { name: 'team.a' } }, errors: [{ field: 'metadata.name', message: `Invalid value: "team.a": ${LABEL_RULE}` }] },
    { name: 'a finalizer without a domain that is not a standard one', object: { spec: { finalizers: ['cleanup'] } }, errors: [{ field: 'spec.finalizers', message: `Invalid value: "cleanup": ${NOT_QUALIFIED}` }] },
    { name: 'the same rule for metadata.finalizers', object: { metadata: { finalizers: ['cleanup'] } }, errors: [{ field: 'metadata.finalizers[0]', message: `Invalid value: "cleanup": ${NOT_QUALIFIED}` }] },
  ],
  updates: [
    {
      name: 'an update keeps spec.finalizers and status (they change through /finalize and /status)',
      object: {},
      change: (o) => ({ ...o, spec: { finalizers: [] }, status: { phase: 'Terminating' }, metadata: { ...o.metadata, labels: { team: 'a' } } }),
      expect: (o) => {
        assert.deepEqual((o.spec as { finalizers: string[] }).finalizers, ['kubernetes']);
        assert.equal((o.status as { phase: string }).phase, 'Active');
        assert.equal(o.metadata?.labels?.team, 'a');
      },
    },
    {
      name: 'the name label cannot be taken away',
      object: {},
      change: (o) => ({ ...o, metadata: { ...o.metadata, labels: {} } }),
      expect: (o) => assert.equal(o.metadata?.labels?.['kubernetes.io/metadata.name'], o.metadata?.name),
    },
    {
      name: 'a terminating namespace cannot be made Active by a status write',
      object: {},
      change: (o) => ({ ...o, status: { phase: 'Terminating' } }),
      // Through the main resource status is kept; the status rule itself is in the HTTP tests of /status.
      expect: (o) => assert.equal((o.status as { phase: string }).phase, 'Active'),
    },
  ],
  defaults: [
    {
      name: 'phase Active, the kubernetes finalizer and the name label',
      object: {},
      expect: (o) => {
        assert.equal((o.status as { phase: string }).phase, 'Active');
        assert.deepEqual((o.spec as { finalizers: string[] }).finalizers, ['kubernetes']);
        assert.equal(o.metadata?.labels?.['kubernetes.io/metadata.name'], o.metadata?.name);
      },
    },
  ],
  columns: [{ name: 'Status', object: {}, cells: ['Active'] }],
});
