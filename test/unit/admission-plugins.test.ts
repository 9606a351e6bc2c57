import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admissionPluginNames } from '../../src/admission/index.ts';

test('by default only NamespaceLifecycle runs (the default-on plugins this server has)', () => {
  assert.deepEqual(admissionPluginNames([], []), ['NamespaceLifecycle']);
});

test('enabled plugins run in upstream order whatever the flag order', () => {
  assert.deepEqual(admissionPluginNames(['AlwaysDeny', 'AlwaysAdmit'], []), ['AlwaysAdmit', 'NamespaceLifecycle', 'AlwaysDeny']);
});

test('a disabled default plugin does not run', () => {
  assert.deepEqual(admissionPluginNames([], ['NamespaceLifecycle']), []);
});
