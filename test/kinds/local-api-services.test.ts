import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { seedBootstrapNamespaces } from '../../seeds/bootstrap-namespaces.ts';
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

test('a restart reads the bootstrap namespaces and APIServices that are there instead of creating them again', async () => {
  // openTestRegistry seeded both already (the first start).
  const kinds = builtinKinds.filter((k) => k.enabledByDefault);
  await seedLocalApiServices(registry.storage, kinds);
  let creates = 0;
  const storage = registry.storage;
  const counted = new Proxy(storage, {
    get(target, prop) {
      if (prop === 'create') {
        return (...args: Parameters<typeof storage.create>) => {
          creates++;
          return target.create(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  assert.deepEqual(await seedBootstrapNamespaces(counted), []);
  assert.deepEqual(await seedLocalApiServices(counted, kinds), []);
  assert.equal(creates, 0, 'no create was attempted');
});
