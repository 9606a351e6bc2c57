import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertObject, convertObjects, ConversionError } from '../../src/crd/conversion/index.ts';
import { WebhookClients } from '../../src/admission/webhook/client.ts';
import { versionStorage } from '../../src/crd/serving/version-storage.ts';
import { widget, widgetCrd } from './conversion-fixtures.ts';

test('strategy None rewrites apiVersion and nothing else, leaving the input alone', async () => {
  const crd = widgetCrd({ strategy: 'None' });
  const input = widget('a', 'v1');
  const out = await convertObject(crd, input, 'v2');
  const mutable: any = out;
  assert.deepEqual(out, { ...widget('a', 'v1'), apiVersion: 'stable.example.com/v2' });
  assert.equal(input.apiVersion, 'stable.example.com/v1');
  mutable.metadata.labels.app = 'changed';
  assert.equal(input.metadata.labels.app, 'w');
});

test('a CRD without a conversion block converts as None', async () => {
  const crd = widgetCrd();
  delete crd.spec!.conversion;
  const out = await convertObject(crd, widget('a', 'v2'), 'v1');
  assert.equal(out.apiVersion, 'stable.example.com/v1');
});

test('strategy None converts every list item, whatever its version', async () => {
  const out = await convertObjects(widgetCrd(), [widget('a', 'v1'), widget('b', 'v2')], 'v2');
  assert.deepEqual(out.map((o) => o.apiVersion), ['stable.example.com/v2', 'stable.example.com/v2']);
  assert.deepEqual(out.map((o) => (o.metadata as any).name), ['a', 'b']);
});

test('objects the caller owns (parsed for a list) are converted in place, not copied', async () => {
  const items = [widget('a', 'v1'), widget('b', 'v2')];
  const out = await convertObjects(widgetCrd(), items, 'v2', { owned: true });
  assert.ok(out[0] === items[0] && out[1] === items[1], 'the same objects come back');
  assert.deepEqual(out.map((o) => o.apiVersion), ['stable.example.com/v2', 'stable.example.com/v2']);
  // Not owned: copies, the input untouched.
  const kept = [widget('c', 'v1')];
  const copied = await convertObjects(widgetCrd(), kept, 'v2');
  assert.notEqual(copied[0], kept[0]);
  assert.equal(kept[0]!.apiVersion, 'stable.example.com/v1');
});

test('versions the CRD does not define are refused with upstream texts', async () => {
  const crd = widgetCrd();
  await assert.rejects(convertObject(crd, widget('a'), 'v3'), new ConversionError('request to convert CR to an invalid group/version: stable.example.com/v3'));
  await assert.rejects(convertObject(crd, { ...widget('a'), apiVersion: 'stable.example.com/v0' }, 'v2'), {
    message: 'request to convert CR from an invalid group/version: stable.example.com/v0',
  });
  await assert.rejects(convertObject(crd, { ...widget('a'), apiVersion: 'other.example.com/v1' }, 'v2'), {
    message: 'request to convert CR from an invalid group/version: other.example.com/v1',
  });
  await assert.rejects(convertObjects(crd, [widget('a'), { ...widget('b'), apiVersion: 'stable.example.com/v9' }], 'v2'), {
    message: 'request to convert CR list failed, list index 1 has invalid group/version: stable.example.com/v9',
  });
});

test('an unknown strategy is refused', async () => {
  await assert.rejects(convertObject(widgetCrd({ strategy: 'Magic' }), widget('a'), 'v2'), {
    message: 'unknown conversion strategy "Magic" for CRD widgets.stable.example.com',
  });
});

test("a version's storage mapping lets the view reuse what it served for a stored text under strategy None only (a webhook's answers may change)", () => {
  const clients = new WebhookClients();
  try {
    assert.equal(versionStorage(widgetCrd({ strategy: 'None' }), 'v2', { clients }).deterministic, true);
    const noBlock = widgetCrd();
    delete noBlock.spec!.conversion;
    assert.equal(versionStorage(noBlock, 'v2', { clients }).deterministic, true);
    assert.equal(versionStorage(widgetCrd({ strategy: 'Webhook' }), 'v2', { clients }).deterministic, false);
  } finally {
    clients.close();
  }
});
