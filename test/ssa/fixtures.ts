/**
 * Fixtures the server-side apply tests share: paths and field sets written as upstream's tests write
 * them (MakePathOrDie, NewSet), and a live object with its managers driven through the Updater.
 */
import assert from 'node:assert/strict';
import type { ObjectSchema } from '../../src/schema/type-schema.ts';
import { FieldSet } from '../../src/ssa/fieldpath/field-set.ts';
import { fieldElement, indexElement, keyElement, pathString, type JsonValue, type Path, type PathElement } from '../../src/ssa/fieldpath/path-element.ts';
import { ConflictsError, Updater, type ManagedFieldSets, type UpdaterOptions } from '../../src/ssa/updater.ts';

/** One argument of upstream's MakePathOrDie: a string is a field, a number an index. */
export function element(part: string | number | PathElement): PathElement {
  return typeof part === 'string' ? fieldElement(part) : typeof part === 'number' ? indexElement(part) : part;
}

/** Upstream's MakePathOrDie. */
export function P(...parts: (string | number | PathElement)[]): Path {
  return parts.map(element);
}

/** A key element from name, value pairs in a row: key('name', 'a', 'port', 80). */
export function key(...pairs: JsonValue[]): PathElement {
  const fields: [string, JsonValue][] = [];
  for (let i = 0; i < pairs.length; i += 2) fields.push([pairs[i] as string, pairs[i + 1]!]);
  return keyElement(fields);
}

export function set(...paths: Path[]): FieldSet {
  return FieldSet.fromPaths(paths);
}

export function sorted(xs: readonly string[]): string[] {
  return [...xs].sort();
}

type Owned = Record<string, { paths: string[]; version: string; applied: boolean }>;

/** A live object and its managers, driven as upstream's merge test fixture drives them (live starts empty). */
export class Cluster {
  live: JsonValue = {};
  managers: ManagedFieldSets = new Map();
  lastApplyResult: JsonValue | null | undefined;
  readonly updater: Updater;

  constructor(schema: ObjectSchema, options?: UpdaterOptions) {
    this.updater = new Updater(schema, options);
  }

  apply(manager: string, config: JsonValue, options: { version?: string; force?: boolean } = {}): void {
    const r = this.updater.apply(this.live, config, options.version ?? 'v1', this.managers, manager, options.force ?? false);
    this.managers = r.managers;
    this.lastApplyResult = r.object;
    if (r.object !== null) this.live = r.object;
  }

  update(manager: string, next: JsonValue, version = 'v1'): void {
    const r = this.updater.update(this.live, next, version, this.managers, manager);
    this.managers = r.managers;
    this.live = r.object;
  }

  /** Conflicts an apply raises, as `manager path` strings. */
  conflicts(manager: string, config: JsonValue, version = 'v1'): string[] {
    try {
      this.apply(manager, config, { version });
    } catch (e) {
      assert.ok(e instanceof ConflictsError, String(e));
      return e.conflicts.map((c) => `${c.manager} ${pathString(c.path)}`);
    }
    assert.fail('expected conflicts');
  }

  /** Every manager's paths (sorted), the version it wrote at and whether it applied. */
  owned(): Owned {
    const out: Owned = {};
    for (const [m, vs] of this.managers) out[m] = { paths: sorted(vs.set.paths().map(pathString)), version: vs.apiVersion, applied: vs.applied };
    return out;
  }

  paths(manager: string): string[] | undefined {
    return this.owned()[manager]?.paths;
  }
}
