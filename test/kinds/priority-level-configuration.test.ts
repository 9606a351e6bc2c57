import assert from 'node:assert/strict';
import { priorityLevelConfigurations } from '../../src/kinds/priority-level-configuration.ts';
import { runKindSuite } from './kind-suite.ts';

const plc = (spec: Record<string, unknown>, name?: string) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', ...(name ? { metadata: { name } } : {}), spec });
const queued = (queuing: Record<string, unknown>, extra: Record<string, unknown> = {}) => plc({ type: 'Limited', limited: { nominalConcurrencyShares: 10, limitResponse: { type: 'Queue', queuing }, ...extra } });

// Expectations from upstream's ValidatePriorityLevelConfiguration (v1 options) and the v1 defaults (1.34).
runKindSuite({
  kind: priorityLevelConfigurations,
  valid: [
    { name: 'limited, queuing', object: queued({ queues: 128, handSize: 6, queueLengthLimit: 100 }, { lendablePercent: 50, borrowingLimitPercent: 200 }) },
    { name: 'limited, rejecting, zero shares (v1 allows it)', object: plc({ type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } }) },
    { name: 'the exempt level', object: plc({ type: 'Exempt', exempt: { nominalConcurrencyShares: 10, lendablePercent: 10 } }, 'exempt') },
  ],
  invalid: [
    { name: 'Exempt only for the level named exempt', object: plc({ type: 'Exempt' }), errors: [{ field: 'spec.type', message: `Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'` }] },
    { name: 'an unknown type', object: plc({ type: 'Sometimes' }), errors: [{ field: 'spec.type', message: 'Unsupported value: "Sometimes": supported values: "Exempt", "Limited"' }] },
    {
      name: 'limited without limited; with exempt',
      object: plc({ type: 'Limited', exempt: {} }),
      errors: [
        { field: 'spec.exempt', message: 'Forbidden: must be nil if the type is Limited' },
        { field: 'spec.limited', message: 'Required value: must not be empty when type is Limited' },
      ],
    },
    {
      name: 'shares, percentages, response type',
      object: plc({ type: 'Limited', limited: { nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -1, limitResponse: { type: 'Drop' } } }),
      errors: [
        { field: 'spec.limited.nominalConcurrencyShares', message: 'Invalid value: -1: must be a non-negative integer' },
        { field: 'spec.limited.limitResponse.type', message: 'Unsupported value: "Drop": supported values: "Queue", "Reject"' },
        { field: 'spec.limited.lendablePercent', message: 'Invalid value: 101: must be between 0 and 100, inclusive' },
        { field: 'spec.limited.borrowingLimitPercent', message: 'Invalid value: -1: if specified, must be a non-negative integer' },
      ],
    },
    { name: 'a hand bigger than the deck', object: queued({ queues: 4, handSize: 5 }), errors: [{ field: 'spec.limited.limitResponse.queuing.handSize', message: 'Invalid value: 5: should not be greater than queues (4)' }] },
    { name: 'too much entropy', object: queued({ queues: 1000000, handSize: 4000 }), errors: [{ field: 'spec.limited.limitResponse.queuing.handSize', message: 'Invalid value: 4000: required entropy bits of deckSize 1000000 and handSize 4000 should not be greater than 60' }] },
    { name: 'queuing with Reject', object: plc({ type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: {} } } }), errors: [{ field: 'spec.limited.limitResponse.queuing', message: 'Forbidden: must be nil if limited.limitResponse.type is not Limited' }] },
    {
      name: 'the mandatory catch-all level has a fixed spec',
      object: plc({ type: 'Limited', limited: { nominalConcurrencyShares: 6, limitResponse: { type: 'Reject' } } }, 'catch-all'),
      errors: [{ field: 'spec', message: `Invalid value: {"limited":{"lendablePercent":0,"limitResponse":{"type":"Reject"},"nominalConcurrencyShares":6},"type":"Limited"}: spec of 'catch-all' must equal the fixed value` }],
    },
  ],
  defaults: [
    {
      name: 'shares 30 when unset, queuing 64/8/50, lendable 0',
      object: plc({ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }),
      expect: (o) => assert.deepEqual(o.spec, { type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } } }),
    },
    { name: 'an explicit zero share stays zero', object: plc({ type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } }), expect: (o) => assert.equal((o.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares, 0) },
  ],
  columns: [
    { name: 'queuing', object: queued({ queues: 16, handSize: 4, queueLengthLimit: 20 }), cells: ['Limited', 10, 16, 4, 20] },
    { name: 'rejecting', object: plc({ type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } }), cells: ['Limited', 5, '<none>', '<none>', '<none>'] },
  ],
});
