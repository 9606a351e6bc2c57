import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { seedLocalApiServices } from '../../seeds/local-api-services.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { apiServices } from '../../src/kinds/api-service.ts';
import { parseListQuery } from '../../src/registry/list-options.ts';
import { toTable } from '../../src/registry/table.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';

let registry: TestRegistry;
before(async () => {
  registry = await openTestRegistry();
});
after(async () => {
  await registry.close();
});

test('every served group version is registered as a Local, Available APIService, once', async () => {
  const kinds = builtinKinds.filter((k) => k.enabledByDefault);
  const first = await seedLocalApiServices(registry.storage, kinds);
  assert.ok(first.includes('v1.'));
  assert.ok(first.includes('v1.coordination.k8s.io'));
  assert.ok(!first.includes('v1beta1.coordination.k8s.io'), 'off-by-default versions are not served');
  assert.deepEqual(await seedLocalApiServices(registry.storage, kinds), []);
  const items = (await registry.store('apiservices', 'apiregistration.k8s.io').list(testContext(), undefined, parseListQuery(new URLSearchParams()))).items.map((t) => JSON.parse(t));
  const core = items.find((i) => i.metadata.name === 'v1.');
  assert.deepEqual(core.spec, { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
  const table = toTable(apiServices, [core]);
  assert.deepEqual(table.rows[0]!.cells.slice(1, 3), ['Local', 'True']);
});
