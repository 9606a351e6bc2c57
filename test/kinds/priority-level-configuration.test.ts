import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import { priorityLevelConfigurations } from '../../src/kinds/priority-level-configuration.ts';
import { toTable } from '../../src/registry/table.ts';
import { runKindSuite } from './kind-suite.ts';

const plc = (spec: Record<string, unknown>, name?: string) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', ...(name ? { metadata: { name } } : {}), spec });
const queued = (queuing: Record<string, unknown>, extra: Record<string, unknown> = {}) => plc({ type: 'Limited', limited: { nominalConcurrencyShares: 10, limitResponse: { type: 'Queue', queuing }, ...extra } });
const rejecting = (limited: Record<string, unknown> = {}) => plc({ type: 'Limited', limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' }, ...limited } });
const HAND = 'spec.limited.limitResponse.queuing.handSize';
const PRESERVE = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';
type Spec = { limited: { nominalConcurrencyShares: number; lendablePercent: number; borrowingLimitPercent?: number; limitResponse: { queuing: unknown } }; exempt?: unknown };
const specOf = (o: KubeObject) => o.spec as Spec;

// Expectations from upstream's ValidatePriorityLevelConfiguration (v1 requests), the v1 defaults,
// the mandatory objects of the apiserver bootstrap configuration and printers.go (1.34).
runKindSuite({
  kind: priorityLevelConfigurations,
  valid: [
    { name: 'limited, queuing, lending and borrowing', object: queued({ queues: 128, handSize: 6, queueLengthLimit: 100 }, { lendablePercent: 100, borrowingLimitPercent: 0 }) },
    { name: 'limited, rejecting, zero shares (v1 allows it)', object: rejecting({ nominalConcurrencyShares: 0 }) },
    { name: 'a hand of 2 over the most queues (10^7)', object: queued({ queues: 10_000_000, handSize: 2, queueLengthLimit: 1 }) },
    { name: 'hand size equal to the queues', object: queued({ queues: 7, handSize: 7 }) },
    { name: 'the catch-all level with its fixed spec', object: plc({ type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } }, 'catch-all') },
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
    { name: 'a negative lendable percent', object: rejecting({ lendablePercent: -1 }), errors: [{ field: 'spec.limited.lendablePercent', message: 'Invalid value: -1: must be between 0 and 100, inclusive' }] },
    { name: 'a limited level without a response type', object: plc({ type: 'Limited', limited: {} }), errors: [{ field: 'spec.limited.limitResponse.type', message: 'Unsupported value: "": supported values: "Queue", "Reject"' }] },
    { name: 'queuing with Reject', object: rejecting({ limitResponse: { type: 'Reject', queuing: { queues: 512, handSize: 4, queueLengthLimit: 100 } } }), errors: [{ field: 'spec.limited.limitResponse.queuing', message: 'Forbidden: must be nil if limited.limitResponse.type is not Limited' }] },
    { name: 'Queue without queuing', object: rejecting({ limitResponse: { type: 'Queue' } }), errors: [{ field: 'spec.limited.limitResponse.queuing', message: 'Required value: must not be empty if limited.limitResponse.type is Limited' }] },
    {
      name: 'negative queuing numbers',
      object: queued({ queues: -1, handSize: -2, queueLengthLimit: -3 }),
      errors: [
        { field: 'spec.limited.limitResponse.queuing.queueLengthLimit', message: 'Invalid value: -3: must be positive' },
        { field: 'spec.limited.limitResponse.queuing.queues', message: 'Invalid value: -1: must be positive' },
        { field: HAND, message: 'Invalid value: -2: must be positive' },
      ],
    },
    { name: 'a hand bigger than the deck', object: queued({ queues: 7, handSize: 8 }), errors: [{ field: HAND, message: 'Invalid value: 8: should not be greater than queues (7)' }] },
    { name: 'too much entropy (512 queues, hand 8)', object: queued({ queues: 512, handSize: 8 }), errors: [{ field: HAND, message: 'Invalid value: 8: required entropy bits of deckSize 512 and handSize 8 should not be greater than 60' }] },
    { name: 'too much entropy (128 queues, hand 10)', object: queued({ queues: 128, handSize: 10 }), errors: [{ field: HAND, message: 'Invalid value: 10: required entropy bits of deckSize 128 and handSize 10 should not be greater than 60' }] },
    {
      name: 'too many queues',
      object: queued({ queues: 2147483647, handSize: 3 }),
      errors: [
        { field: 'spec.limited.limitResponse.queuing.queues', message: 'Invalid value: 2147483647: must not be greater than 10000000' },
        { field: HAND, message: 'Invalid value: 3: required entropy bits of deckSize 2147483647 and handSize 3 should not be greater than 60' },
      ],
    },
    {
      name: 'the exempt level: shares and percent checked, limited forbidden, rest fixed',
      object: plc({ type: 'Exempt', exempt: { nominalConcurrencyShares: -1, lendablePercent: 101 }, limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } } }, 'exempt'),
      errors: [
        { field: 'spec.limited', message: 'Forbidden: must be nil if the type is not Limited' },
        { field: 'spec.exempt.nominalConcurrencyShares', message: 'Invalid value: -1: must be a non-negative integer' },
        { field: 'spec.exempt.lendablePercent', message: 'Invalid value: 101: must be between 0 and 100, inclusive' },
        {
          field: 'spec',
          message: `Invalid value: {"Type":"Exempt","Limited":{"NominalConcurrencyShares":42,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":null},"Exempt":{"NominalConcurrencyShares":-1,"LendablePercent":101}}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value`,
        },
      ],
    },
    {
      name: 'the exempt level may not become limited',
      object: plc({ type: 'Limited', limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } } }, 'exempt'),
      errors: [
        { field: 'spec.type', message: `Invalid value: "Limited": type must be 'Exempt' if and only if name is 'exempt'` },
        {
          field: 'spec',
          message: `Invalid value: {"Type":"Limited","Limited":{"NominalConcurrencyShares":42,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":null},"Exempt":null}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value`,
        },
      ],
    },
    {
      name: 'the mandatory catch-all level has a fixed spec',
      object: plc({ type: 'Limited', limited: { nominalConcurrencyShares: 5, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } } }, 'catch-all'),
      errors: [
        {
          field: 'spec',
          message: `Invalid value: {"Type":"Limited","Limited":{"NominalConcurrencyShares":5,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":0},"Exempt":null}: spec of 'catch-all' must equal the fixed value`,
        },
      ],
    },
    {
      name: "v1beta3's round-trip annotation is forbidden",
      object: { ...rejecting(), metadata: { annotations: { [PRESERVE]: '' } } },
      errors: [{ field: 'metadata.annotations', message: `Forbidden: annotation '${PRESERVE}' is forbidden` }],
    },
  ],
  updates: [
    { name: 'a spec change bumps the generation', object: rejecting(), change: (o) => ({ ...o, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 7, limitResponse: { type: 'Reject' } } } }), expect: (o) => assert.equal(o.metadata?.generation, 2) },
    {
      name: 'updates are validated as creates',
      object: rejecting(),
      change: (o) => ({ ...o, spec: { type: 'Limited', limited: { nominalConcurrencyShares: -5, limitResponse: { type: 'Reject' } } } }),
      errors: [{ field: 'spec.limited.nominalConcurrencyShares', message: 'Invalid value: -5: must be a non-negative integer' }],
    },
  ],
  statusUpdates: [
    {
      name: 'condition types are set and unique',
      object: rejecting(),
      change: (o) => ({ ...o, status: { conditions: [{ type: 'ConcurrencyShared', status: 'True' }, { type: 'ConcurrencyShared', status: 'False' }, { status: 'True' }] } }),
      errors: [
        { field: 'status.conditions[1].type', message: 'Duplicate value: "ConcurrencyShared"' },
        { field: 'status.conditions[2].type', message: 'Required value: must not be empty' },
      ],
    },
    {
      name: 'a status write keeps the stored spec and annotations',
      object: { ...rejecting(), metadata: { annotations: { a: 'b' } } },
      change: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { a: 'changed' } }, spec: { type: 'Exempt' }, status: { conditions: [{ type: 'ConcurrencyShared', status: 'True' }] } }),
      expect: (o) => {
        assert.deepEqual(o.metadata?.annotations, { a: 'b' });
        assert.equal(specOf(o).limited.nominalConcurrencyShares, 42);
        assert.deepEqual(o.status, { conditions: [{ type: 'ConcurrencyShared', status: 'True' }] });
      },
    },
  ],
  defaults: [
    {
      name: 'shares 30 when unset, queuing 64/8/50, lendable 0',
      object: plc({ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }),
      expect: (o) => assert.deepEqual(o.spec, { type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } } }),
    },
    { name: 'an explicit zero share stays zero', object: rejecting({ nominalConcurrencyShares: 0 }), expect: (o) => assert.equal(specOf(o).limited.nominalConcurrencyShares, 0) },
    {
      name: 'set queuing values and percentages are kept; borrowing has no default',
      object: queued({ queues: 16, handSize: 4, queueLengthLimit: 20 }, { lendablePercent: 30 }),
      expect: (o) => {
        assert.deepEqual(specOf(o).limited.limitResponse.queuing, { queues: 16, handSize: 4, queueLengthLimit: 20 });
        assert.equal(specOf(o).limited.lendablePercent, 30);
        assert.equal(specOf(o).limited.borrowingLimitPercent, undefined);
      },
    },
    { name: 'a rejecting level gets no queuing', object: rejecting(), expect: (o) => assert.equal(specOf(o).limited.limitResponse.queuing, undefined) },
    { name: 'a create starts with an empty status', object: { ...rejecting(), status: { conditions: [{ type: 'ConcurrencyShared', status: 'True' }] } }, expect: (o) => assert.deepEqual(o.status, {}) },
  ],
  columns: [
    { name: 'queuing', object: queued({ queues: 16, handSize: 4, queueLengthLimit: 20 }), cells: ['Limited', 10, 16, 4, 20] },
    { name: 'rejecting', object: rejecting({ nominalConcurrencyShares: 5 }), cells: ['Limited', 5, '<none>', '<none>', '<none>'] },
    // The exempt level's exempt fields default (0/0) and may be tuned; it has no limited part to print.
    { name: 'the exempt level (tuned)', object: plc({ type: 'Exempt', exempt: { nominalConcurrencyShares: 10, lendablePercent: 10 } }, 'exempt'), cells: ['Exempt', '<none>', '<none>', '<none>', '<none>'] },
  ],
});

test('the exempt level defaults its exempt fields to 0 (checked without storing)', () => {
  const obj = plc({ type: 'Exempt', exempt: {} }, 'exempt');
  priorityLevelConfigurations.strategy.default!({} as never, obj);
  assert.deepEqual(obj.spec.exempt, { nominalConcurrencyShares: 0, lendablePercent: 0 });
  const cells = toTable(priorityLevelConfigurations, [obj]).rows[0]!.cells;
  assert.deepEqual(cells.slice(1, 6), ['Exempt', '<none>', '<none>', '<none>', '<none>']);
  assert.deepEqual(toTable(priorityLevelConfigurations, []).columnDefinitions.map((c) => c.name), ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age']);
});
