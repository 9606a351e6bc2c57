import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admissionPluginNames } from '../../src/admission/index.ts';

// The built-in plugins on by default upstream, in upstream order (other default-on plugins this
// server has, such as webhooks and policies, run between them).
const BUILTIN_DEFAULTS = ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'PodSecurity', 'ResourceQuota'];

test('by default the default-on plugins this server has run, in upstream order', () => {
  const names = admissionPluginNames([], []);
  assert.deepEqual(
    names.filter((n) => BUILTIN_DEFAULTS.includes(n)),
    BUILTIN_DEFAULTS,
  );
  assert.ok(!names.includes('AlwaysAdmit') && !names.includes('AlwaysDeny'), names.join(','));
  assert.equal(names[0], 'NamespaceLifecycle');
  assert.equal(names[names.length - 1], 'ResourceQuota');
});

test('enabled plugins run in upstream order whatever the flag order', () => {
  const names = admissionPluginNames(['AlwaysDeny', 'AlwaysAdmit'], []);
  assert.deepEqual(names.slice(0, 2), ['AlwaysAdmit', 'NamespaceLifecycle']);
  assert.deepEqual(names.slice(-2), ['ResourceQuota', 'AlwaysDeny']);
});

test('a disabled default plugin does not run', () => {
  const names = admissionPluginNames([], ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'PodSecurity', 'ResourceQuota']);
  for (const n of BUILTIN_DEFAULTS) assert.ok(!names.includes(n), n);
});
