/**
 * --runtime-config against the built-in kinds, every form kube-apiserver 1.34 takes (its
 * resourceconfig merge and option validation): level switches, group/version, group/version/resource,
 * the legacy core spellings, and upstream's start-up errors.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { builtinKinds } from '../../src/kinds/index.ts';
import type { KindDefinition } from '../../src/registry/kind.ts';
import { enabledKinds } from '../../src/registry/runtime-config.ts';
import { StartupError } from '../../src/startup-error.ts';

const served = (entries: string[]) => new Set(enabledKinds(builtinKinds, entries).map((k) => `${k.group || 'core'}/${k.version}/${k.plural}`));
const versionsOf = (entries: string[]) => new Set(enabledKinds(builtinKinds, entries).map((k) => `${k.group || 'core'}/${k.version}`));
const refused = (entries: string[], message: string) => assert.throws(() => enabledKinds(builtinKinds, entries), (err: Error) => err instanceof StartupError && err.message === message);

const ALL_VERSIONS = new Set(builtinKinds.map((k) => `${k.group || 'core'}/${k.version}`));
const defaults = versionsOf([]);

describe('defaults', () => {
  test('stable versions are served, the beta and alpha ones are not', () => {
    assert.ok(defaults.has('core/v1'));
    assert.ok(defaults.has('storage.k8s.io/v1'));
    assert.equal(defaults.has('coordination.k8s.io/v1beta1'), false);
    assert.equal(defaults.has('storagemigration.k8s.io/v1alpha1'), false);
    for (const v of defaults) assert.match(v, /\/v\d+$/);
  });
});

describe('forms', () => {
  test('<group>/<version>=false turns a version off; with no value or =true it turns one on', () => {
    assert.equal(versionsOf(['storage.k8s.io/v1=false']).has('storage.k8s.io/v1'), false);
    assert.ok(versionsOf(['coordination.k8s.io/v1beta1']).has('coordination.k8s.io/v1beta1'));
    assert.ok(versionsOf(['coordination.k8s.io/v1beta1=true']).has('coordination.k8s.io/v1beta1'));
    assert.ok(versionsOf(['coordination.k8s.io/v1beta1=t']).has('coordination.k8s.io/v1beta1'));
  });

  test('<group>/<version>/<resource> switches one resource and wins over its version', () => {
    const off = served(['storage.k8s.io/v1/csidrivers=false']);
    assert.equal(off.has('storage.k8s.io/v1/csidrivers'), false);
    assert.ok(off.has('storage.k8s.io/v1/csinodes'));
    const only = served(['storage.k8s.io/v1=false', 'storage.k8s.io/v1/csinodes=true']);
    assert.deepEqual([...only].filter((r) => r.startsWith('storage.k8s.io/')), ['storage.k8s.io/v1/csinodes']);
  });

  test('api/all=false with one version on serves that version alone', () => {
    assert.deepEqual([...versionsOf(['api/all=false', 'flowcontrol.apiserver.k8s.io/v1=true'])], ['flowcontrol.apiserver.k8s.io/v1']);
    assert.deepEqual(versionsOf(['api/all=true']), ALL_VERSIONS);
  });

  test('api/ga, api/beta and api/alpha switch every version of their level', () => {
    assert.ok(versionsOf(['api/beta=true']).has('coordination.k8s.io/v1beta1'));
    assert.equal(versionsOf(['api/beta=true']).has('storagemigration.k8s.io/v1alpha1'), false);
    assert.ok(versionsOf(['api/alpha=true']).has('storagemigration.k8s.io/v1alpha1'));
    assert.deepEqual([...versionsOf(['api/ga=false', 'api/beta=true', 'flowcontrol.apiserver.k8s.io/v1=true'])].sort(), ['coordination.k8s.io/v1beta1', 'flowcontrol.apiserver.k8s.io/v1']);
    // A named version wins over its level.
    assert.equal(versionsOf(['api/beta=true', 'coordination.k8s.io/v1beta1=false']).has('coordination.k8s.io/v1beta1'), false);
  });

  test('the core group: v1 and api/v1 switch it whole, /v1/<resource> one resource, api/legacy is ignored', () => {
    const withoutCore = ['storage.k8s.io/v1=true'];
    assert.equal(versionsOf(['v1=false', ...withoutCore]).has('core/v1'), false);
    assert.equal(versionsOf(['api/v1=false']).has('core/v1'), false);
    // Upstream drops the resource of v1/<resource> and api/v1/<resource>: the whole group goes.
    assert.equal(versionsOf(['api/v1/configmaps=false']).has('core/v1'), false);
    const oneOff = served(['/v1/configmaps=false']);
    assert.equal(oneOff.has('core/v1/configmaps'), false);
    assert.ok(oneOff.has('core/v1/secrets'));
    assert.deepEqual(versionsOf(['api/legacy=false']), defaults);
  });
});

describe('start-up errors', () => {
  test('an unknown group, a version its group never registered, a bad key or value', () => {
    refused(['foo.example.com/v1=true'], 'unknown api groups foo.example.com');
    refused(['foo.example.com/v1=true', 'bar.example.com/v2/things=false'], 'unknown api groups foo.example.com,bar.example.com');
    refused(['batch/v2alpha1=true'], 'group version batch/v2alpha1 that has not been registered');
    refused(['storage.k8s.io/v7=false'], 'group version storage.k8s.io/v7 that has not been registered');
    refused(['/v2=true'], 'group version v2 that has not been registered');
    refused(['storage'], 'runtime-config invalid key storage');
    refused(['storage.k8s.io/v1=yes'], 'invalid value of storage.k8s.io/v1: yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
    refused(['api/beta'], 'invalid value api/beta=');
    refused(['storage.k8s.io/v1/CSIDrivers=false'], 'invalid key storage.k8s.io/v1/CSIDrivers: group/version/resource and resource is always lowercase plural, not "CSIDrivers"');
    // Upstream reports both problems of this one: APF's API would be off too.
    refused(['api/all=false'], '[--runtime-config=api/all=false conflicts with --enable-priority-and-fairness=true, invalid key with only api/all=false]');
  });

  test('the flowcontrol API cannot be turned off while API Priority and Fairness runs', () => {
    refused(['flowcontrol.apiserver.k8s.io/v1=false'], '--runtime-config=flowcontrol.apiserver.k8s.io/v1=false conflicts with --enable-priority-and-fairness=true');
    refused(['api/ga=false', 'coordination.k8s.io/v1beta1=true'], '--runtime-config=api/ga=false conflicts with --enable-priority-and-fairness=true');
    refused(['api/all=false', 'v1=true'], '--runtime-config=api/all=false conflicts with --enable-priority-and-fairness=true');
  });

  test('versions upstream still registers but no longer serves are accepted and serve nothing', () => {
    for (const removed of ['extensions/v1beta1=true', 'flowcontrol.apiserver.k8s.io/v1beta3=true', 'policy/v1beta1=true', 'events.k8s.io/v1beta1=true']) {
      assert.deepEqual(versionsOf([removed]), defaults, removed);
    }
  });

  test('a kind the caller brings makes its group known', () => {
    const gadgets = builtinKinds[0]!;
    const custom = { ...gadgets, group: 'gadgets.example.com', version: 'v1', plural: 'gadgets' } as KindDefinition;
    assert.deepEqual(enabledKinds([custom], ['gadgets.example.com/v1=false']), []);
    // Without the flowcontrol API to keep, api/all=false alone is refused for its own reason.
    assert.throws(() => enabledKinds([custom], ['api/all=false']), { message: 'invalid key with only api/all=false' });
  });
});
