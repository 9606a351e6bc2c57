import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestContext } from '../../src/api/request-context.ts';
import type { KubeObject } from '../../src/api/types.ts';
import type { KindDefinition } from '../../src/registry/kind.ts';
import type { ResourceStore } from '../../src/registry/resource-store.ts';
import { toTable } from '../../src/registry/table.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { gatedContext } from './gated-context.ts';

/** One expected field error: its path and its message as the 422's cause carries them. */
export interface ExpectedError {
  readonly field: string;
  readonly message: string;
}

export interface InvalidCase {
  readonly name: string;
  readonly object: KubeObject;
  readonly errors: readonly ExpectedError[];
}

export interface UpdateCase {
  readonly name: string;
  /** What is created first. */
  readonly object: KubeObject;
  /** The update, from a copy of the stored object. */
  readonly change: (stored: KubeObject) => KubeObject;
  /** The 422's causes; none means the update is accepted. */
  readonly errors?: readonly ExpectedError[];
  /** Checks on the stored result of an accepted update. */
  readonly expect?: (stored: KubeObject) => void;
}

export interface DefaultCase {
  readonly name: string;
  readonly object: KubeObject;
  /** Checks on what was stored. */
  readonly expect: (stored: KubeObject) => void;
}

export interface ColumnCase {
  readonly name: string;
  readonly object: KubeObject;
  /** The kind's own cells (all its columns but Name, in order). */
  readonly cells: readonly unknown[];
}

/**
 * The rules of one kind, checked against the store on PostgreSQL without HTTP: objects it accepts,
 * objects it refuses (with each error's field path and message), updates (immutable fields and other
 * update rules), defaults, and table columns. Each kind has one such file in test/kinds.
 */
export interface KindSuite {
  readonly kind: KindDefinition;
  readonly valid: readonly { readonly name: string; readonly object: KubeObject }[];
  readonly invalid: readonly InvalidCase[];
  readonly updates?: readonly UpdateCase[];
  /** Updates through the status subresource. */
  readonly statusUpdates?: readonly UpdateCase[];
  readonly defaults?: readonly DefaultCase[];
  readonly columns?: readonly ColumnCase[];
  /** The feature gates every write of the suite sees (gate → enabled), for kinds with gated fields; none by default. */
  readonly featureGates?: Readonly<Record<string, boolean>>;
}

let counter = 0;

/** A copy of the object with a fresh name (each case writes its own object). */
function named(object: KubeObject): KubeObject {
  const copy = structuredClone(object);
  const meta = (copy.metadata ??= {});
  if (!meta.name && !meta.generateName) meta.name = `case-${++counter}`;
  return copy;
}

function causesOf(err: unknown): ExpectedError[] {
  const e = err as { code?: number; status?: { details?: { causes?: { field?: string; message?: string }[] } } };
  assert.equal(e.code, 422, `expected 422 Invalid, got ${String((err as Error).message)}`);
  return (e.status?.details?.causes ?? []).map((c) => ({ field: c.field ?? '', message: c.message ?? '' }));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail('the store accepted it');
}

/** Runs a kind's suite (one database for the file). */
export function runKindSuite(suite: KindSuite): void {
  const { kind } = suite;
  const namespace = kind.namespaced ? 'default' : '';
  let registry: TestRegistry;
  let store: ResourceStore;
  const context = (options: { subresource?: string } = {}): RequestContext => (suite.featureGates ? gatedContext(suite.featureGates, options.subresource) : testContext(options));

  describe(`${kind.kind} (${kind.group || 'core'}/${kind.version})`, () => {
    before(async () => {
      const kinds = builtinKinds.some((k) => k === kind) ? builtinKinds : [...builtinKinds, kind];
      registry = await openTestRegistry({ kinds });
      store = registry.store(kind.plural, kind.group);
    });
    after(async () => {
      await registry.close();
    });

    describe('valid objects are stored', () => {
      for (const c of suite.valid) {
        test(c.name, async () => {
          const stored = await store.create(context(), namespace, named(c.object));
          assert.ok(stored.object.metadata.uid);
        });
      }
    });

    describe('invalid objects are refused with field paths and messages', () => {
      for (const c of suite.invalid) {
        test(c.name, async () => {
          const err = await rejection(store.create(context(), namespace, named(c.object)));
          assert.deepEqual(causesOf(err), c.errors);
        });
      }
    });

    const updateCases = [...(suite.updates ?? []).map((c) => ({ c, subresource: '' })), ...(suite.statusUpdates ?? []).map((c) => ({ c, subresource: 'status' }))];
    describe('updates', () => {
      for (const { c, subresource } of updateCases) {
        test(subresource ? `${subresource}: ${c.name}` : c.name, async () => {
          const created = await store.create(context(), namespace, named(c.object));
          const name = created.object.metadata.name;
          const write = store.update(context({ subresource }), namespace, name, { build: (current) => c.change(current!) });
          if (c.errors) {
            assert.deepEqual(causesOf(await rejection(write)), c.errors);
          } else {
            const { stored } = await write;
            c.expect?.(stored.object);
          }
        });
      }
    });

    describe('defaults', () => {
      for (const c of suite.defaults ?? []) {
        test(c.name, async () => {
          const stored = await store.create(context(), namespace, named(c.object));
          c.expect(stored.object);
          c.expect((await store.get(context(), namespace, stored.object.metadata.name)).object);
        });
      }
    });

    describe('table columns', () => {
      for (const c of suite.columns ?? []) {
        test(c.name, async () => {
          const stored = await store.create(context(), namespace, named(c.object));
          const table = toTable(kind, [stored.object]);
          const names = table.columnDefinitions.map((d) => d.name);
          // Name and Age cells are left out (the runner names objects itself; ages move on).
          const own = kind.tableColumns.filter((col) => col.name !== 'Name' && col.name !== 'Age').map((col) => table.rows[0]!.cells[names.indexOf(col.name)]);
          assert.deepEqual(own, c.cells);
        });
      }
    });
  });
}
