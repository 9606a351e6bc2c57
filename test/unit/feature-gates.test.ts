/**
 * --feature-gates as kube-apiserver 1.34 parses it: the 1.34 gate table, upstream's start-up errors
 * (unknown gate, bad value, locked gate) and warnings (GA and deprecated gates named), AllAlpha and
 * AllBeta, the `kube:` component prefix.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultFeatureGates, parseFeatureGates } from '../../src/features/feature-gates.ts';
import { GATES_1_34 } from '../../src/features/gates-1.34.ts';
import { StartupError } from '../../src/startup-error.ts';

const refused = (entries: string[], message: string) => assert.throws(() => parseFeatureGates(entries), (err: Error) => err instanceof StartupError && err.message === message);

describe('the 1.34 gate table', () => {
  test('the gates the reference names, with their 1.34 stage, default and lock', () => {
    const expected: Record<string, { default: boolean; stage: string; lockToDefault?: boolean }> = {
      CBORServingAndStorage: { default: false, stage: 'ALPHA' },
      AllowUnsafeMalformedObjectDeletion: { default: false, stage: 'ALPHA' },
      APIResponseCompression: { default: true, stage: 'BETA' },
      WatchList: { default: true, stage: 'BETA' },
      CoordinatedLeaderElection: { default: false, stage: 'BETA' },
      MutableCSINodeAllocatableCount: { default: false, stage: 'BETA' },
      RecoverVolumeExpansionFailure: { default: true, stage: 'GA', lockToDefault: true },
      VolumeAttributesClass: { default: true, stage: 'GA' },
      AnyVolumeDataSource: { default: true, stage: 'GA', lockToDefault: true },
      CrossNamespaceVolumeDataSource: { default: false, stage: 'ALPHA' },
      // API machinery gates of the kinds and paths served here.
      OrderedNamespaceDeletion: { default: true, stage: 'GA', lockToDefault: true },
      AuthorizeWithSelectors: { default: true, stage: 'GA', lockToDefault: true },
      StructuredAuthenticationConfiguration: { default: true, stage: 'GA', lockToDefault: true },
      MutatingAdmissionPolicy: { default: false, stage: 'BETA' },
      WatchFromStorageWithoutResourceVersion: { default: false, stage: 'DEPRECATED', lockToDefault: true },
      KMSv1: { default: false, stage: 'DEPRECATED' },
      ComponentSLIs: { default: true, stage: 'GA', lockToDefault: true },
      WatchListClient: { default: false, stage: 'BETA' },
    };
    for (const [name, spec] of Object.entries(expected)) assert.deepEqual(GATES_1_34.get(name), spec, name);
  });

  test('gates gone before 1.34 (APISelfSubjectReview went in 1.30) and gates that came after it are not in it', () => {
    for (const name of ['APISelfSubjectReview', 'ServerSideApply', 'DevicePluginCDIDevices', 'DRADeviceTaintRules', 'ChangeContainerStatusOnKubeletRestart']) {
      assert.equal(GATES_1_34.has(name), false, name);
    }
    assert.ok(GATES_1_34.size > 150, `${GATES_1_34.size} gates`);
  });
});

describe('parsing', () => {
  test('with nothing named every gate has its default', () => {
    const gates = defaultFeatureGates();
    assert.equal(gates.enabled('APIResponseCompression'), true);
    assert.equal(gates.enabled('CBORServingAndStorage'), false);
    assert.equal(gates.enabled('NoSuchGate'), false);
    assert.deepEqual(parseFeatureGates([]).warnings, []);
  });

  test('Name=bool pairs set gates; values as Go reads booleans; the last of a gate named twice wins', () => {
    const { gates, warnings } = parseFeatureGates(['CBORServingAndStorage=true', 'WatchList=f', 'CoordinatedLeaderElection=1', 'CoordinatedLeaderElection=FALSE', ' APIResponseCompression = False ']);
    assert.equal(gates.enabled('CBORServingAndStorage'), true);
    assert.equal(gates.enabled('WatchList'), false);
    assert.equal(gates.enabled('CoordinatedLeaderElection'), false);
    assert.equal(gates.enabled('APIResponseCompression'), false);
    assert.deepEqual(warnings, []);
  });

  test('an unknown gate stops the start with upstream\'s words', () => {
    refused(['NoSuchGate=true'], 'unrecognized feature gate: NoSuchGate');
    refused(['APISelfSubjectReview=true'], 'unrecognized feature gate: APISelfSubjectReview');
  });

  test('a value that is not a Go boolean, or none, stops the start', () => {
    refused(['WatchList=yes'], 'invalid value of WatchList=yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
    refused(['WatchList'], 'missing bool value for WatchList');
  });

  test('a locked gate may be named with its default (with the GA warning) but not set against it', () => {
    refused(['AnyVolumeDataSource=false'], 'cannot set feature gate AnyVolumeDataSource to false, feature is locked to true');
    refused(['WatchFromStorageWithoutResourceVersion=true'], 'cannot set feature gate WatchFromStorageWithoutResourceVersion to true, feature is locked to false');
    const { gates, warnings } = parseFeatureGates(['AnyVolumeDataSource=true']);
    assert.equal(gates.enabled('AnyVolumeDataSource'), true);
    assert.deepEqual(warnings, ['Setting GA feature gate AnyVolumeDataSource=true. It will be removed in a future release.']);
  });

  test('several locked gates are all reported, as an aggregate', () => {
    refused(
      ['AnyVolumeDataSource=false', 'OrderedNamespaceDeletion=false'],
      '[cannot set feature gate AnyVolumeDataSource to false, feature is locked to true, cannot set feature gate OrderedNamespaceDeletion to false, feature is locked to true]',
    );
  });

  test('naming a GA or a deprecated gate logs upstream\'s warning', () => {
    const { gates, warnings } = parseFeatureGates(['VolumeAttributesClass=false', 'KMSv1=true', 'WatchList=true']);
    assert.equal(gates.enabled('VolumeAttributesClass'), false);
    assert.equal(gates.enabled('KMSv1'), true);
    assert.deepEqual(warnings, [
      'Setting GA feature gate VolumeAttributesClass=false. It will be removed in a future release.',
      'Setting deprecated feature gate KMSv1=true. It will be removed in a future release.',
    ]);
  });

  test('AllAlpha and AllBeta set every gate of their stage that is not named; named gates win', () => {
    const alpha = parseFeatureGates(['CrossNamespaceVolumeDataSource=false', 'AllAlpha=true']).gates;
    assert.equal(alpha.enabled('CBORServingAndStorage'), true);
    assert.equal(alpha.enabled('AllowUnsafeMalformedObjectDeletion'), true);
    assert.equal(alpha.enabled('CrossNamespaceVolumeDataSource'), false);
    // Beta and deprecated gates keep their defaults.
    assert.equal(alpha.enabled('CoordinatedLeaderElection'), false);
    assert.equal(alpha.enabled('KMSv1'), false);
    const beta = parseFeatureGates(['AllBeta=false', 'WatchList=true']).gates;
    assert.equal(beta.enabled('APIResponseCompression'), false);
    assert.equal(beta.enabled('WatchList'), true);
    assert.equal(beta.enabled('CBORServingAndStorage'), false);
    // GA gates are untouched.
    assert.equal(beta.enabled('VolumeAttributesClass'), true);
  });

  test('the kube: component prefix is accepted; another component, or mixing both spellings, is not', () => {
    assert.equal(parseFeatureGates(['kube:CBORServingAndStorage=true']).gates.enabled('CBORServingAndStorage'), true);
    refused(['wardle:FeatureA=true'], 'component not registered: wardle');
    refused(['kube:WatchList=true', 'CBORServingAndStorage=true'], 'set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use');
  });
});
