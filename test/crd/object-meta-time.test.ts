// metav1.Time as a custom resource's metadata is written back (ToUnstructured): UTC, whole seconds,
// and the zero time as null, whether the text was already in that form or not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unstructuredTime } from '../../src/crd/schema/objectmeta/object-meta-json.ts';

test('times are written back in UTC to the second; the zero time is null', () => {
  assert.equal(unstructuredTime('2026-11-27T08:09:10Z'), '2026-11-27T08:09:10Z');
  assert.equal(unstructuredTime('2026-11-27T10:09:10+02:00'), '2026-11-27T08:09:10Z');
  assert.equal(unstructuredTime('2026-11-27T08:09:10.987Z'), '2026-11-27T08:09:10Z');
  assert.equal(unstructuredTime('0001-01-01T00:00:00Z'), null);
  assert.equal(unstructuredTime('0001-01-01T01:00:00+01:00'), null);
  assert.equal(unstructuredTime('2023-02-29T00:00:00Z'), null, 'not a time Go parses');
  assert.equal(unstructuredTime('yesterday'), null);
});
