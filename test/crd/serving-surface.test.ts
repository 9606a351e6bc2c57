import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { configMaps } from '../../src/kinds/config-map.ts';
import type { KindDefinition } from '../../src/registry/kind.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';

let reg: TestRegistry;
before(async () => {
  reg = await openTestRegistry();
});
after(async () => {
  await reg.close();
});

const kindAt = (group: string, version: string, plural: string): KindDefinition => ({ ...configMaps, group, version, plural, kind: 'Thing' });

test('replaceOwned swaps an owner\'s kinds in one step and one generation', () => {
  const surface = reg.surface;
  const g0 = surface.generation;
  const v1 = kindAt('example.com', 'v1', 'things');
  const v2 = kindAt('example.com', 'v2', 'things');
  const first = surface.replaceOwned('things.example.com', [v1, v2]);
  assert.equal(first.served.length, 2);
  assert.equal(surface.generation, g0 + 1);
  const store1 = surface.lookup('example.com', 'v1', 'things')!.store;

  // A rebuild: v1 replaced by a new definition, v2 dropped, v3 added.
  const v1b = { ...v1 };
  const v3 = kindAt('example.com', 'v3', 'things');
  surface.replaceOwned('things.example.com', [v1b, v3]);
  assert.equal(surface.generation, g0 + 2);
  assert.equal(surface.lookup('example.com', 'v1', 'things')!.kind, v1b);
  assert.notEqual(surface.lookup('example.com', 'v1', 'things')!.store, store1);
  assert.equal(surface.lookup('example.com', 'v2', 'things'), undefined);
  assert.ok(surface.lookup('example.com', 'v3', 'things'));
  assert.deepEqual(surface.owned('things.example.com').map((s) => s.kind.version), ['v1', 'v3']);
  assert.equal(surface.kinds.filter((k) => k.group === 'example.com').length, 2);

  surface.replaceOwned('things.example.com', []);
  assert.equal(surface.lookup('example.com', 'v1', 'things'), undefined);
  assert.equal(surface.kinds.filter((k) => k.group === 'example.com').length, 0);
  assert.equal(surface.generation, g0 + 3);
  // Nothing owned and nothing to add: no change, no new generation.
  surface.replaceOwned('things.example.com', []);
  assert.equal(surface.generation, g0 + 3);
});

test('replaceOwned never takes a path served by a built-in kind or another owner', () => {
  const surface = reg.surface;
  const builtIn = surface.lookup('', 'v1', 'configmaps')!;
  const { served, shadowed } = surface.replaceOwned('configmaps.', [kindAt('', 'v1', 'configmaps'), kindAt('', 'v9', 'configmaps')]);
  assert.deepEqual(shadowed.map((k) => k.version), ['v1']);
  assert.deepEqual(served.map((s) => s.kind.version), ['v9']);
  assert.equal(surface.lookup('', 'v1', 'configmaps'), builtIn);

  surface.replaceOwned('a.example.com', [kindAt('example.com', 'v1', 'shared')]);
  const other = surface.replaceOwned('b.example.com', [kindAt('example.com', 'v1', 'shared')]);
  assert.equal(other.shadowed.length, 1);
  // The owner going away leaves the built-in kind served.
  surface.replaceOwned('configmaps.', []);
  assert.equal(surface.lookup('', 'v1', 'configmaps'), builtIn);
  assert.equal(surface.lookup('', 'v9', 'configmaps'), undefined);
});
