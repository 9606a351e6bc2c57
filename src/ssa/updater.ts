/**
 * Upstream's merge.Updater: who owns which fields after an update or an apply, and the object an apply
 * produces (the configuration merged over the live object, with what the applier stopped applying
 * pruned unless someone else still owns it).
 *
 * This server keeps one schema per kind, so objects are never converted between API versions: sets
 * recorded at another apiVersion are compared against the very same objects (upstream converts the
 * objects to each set's version first, which is the identity here). A set's apiVersion still selects the
 * ignored fields that apply to it, and is kept as recorded.
 *
 * Pure: the managers given are never modified; new maps and sets are returned.
 */
import { FieldSet } from './fieldpath/field-set.ts';
import type { JsonValue } from './fieldpath/path-element.ts';
import { valuesEqual } from './fieldpath/value-order.ts';
import type { ObjectSchema } from '../schema/type-schema.ts';
import { conflictsFromManagers, ConflictsError } from './conflicts.ts';
import { objectAtom, type Atom } from './typed/atoms.ts';
import { compareValues } from './typed/compare.ts';
import { validationErrorsText } from './typed/errors.ts';
import { validate } from './typed/index.ts';
import { mergeValues } from './typed/merge.ts';
import { namedFieldsAsMembers } from './typed/named-fields.ts';
import { reconcileWithSchema } from './typed/reconcile.ts';
import { removeFrom } from './typed/remove-items.ts';
import { fieldSetOf } from './typed/to-field-set.ts';

export { ConflictsError, type Conflict } from './conflicts.ts';

export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  /** The set was recorded by an apply (true) or an update (false). */
  readonly applied: boolean;
}

/** Sets by manager identifier (opaque here: the managed-fields layer encodes manager, operation, subresource). */
export type ManagedFieldSets = Map<string, VersionedSet>;

export interface UpdaterOptions {
  /**
   * Fields nobody may own, by apiVersion (upstream's IgnoredFields; kube-apiserver's reset fields such as
   * `.status` for a main resource): they never conflict, are never recorded, and are never removed from
   * anyone by a comparison.
   */
  readonly ignoredFields?: ReadonlyMap<string, FieldSet>;
}

interface VersionComparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
  readonly changed: FieldSet;
}

export class Updater {
  readonly #schema: ObjectSchema;
  readonly #atom: Atom;
  readonly #ignored: ReadonlyMap<string, FieldSet>;
  /** Frozen sets and what reconciling them gave (null: nothing to change); see #reconciledSet. */
  readonly #reconciled = new WeakMap<FieldSet, FieldSet | null>();
  /** Frozen sets with their named fields; see #named. */
  readonly #namedSets = new WeakMap<FieldSet, FieldSet>();

  constructor(schema: ObjectSchema, options: UpdaterOptions = {}) {
    this.#schema = schema;
    this.#atom = objectAtom(schema);
    this.#ignored = options.ignoredFields ?? new Map();
  }

  /**
   * A non-apply write (create, update, patch): `next` is the object about to be stored, `live` the one
   * before (an empty object for a create). The manager takes every field it added or changed, loses
   * every field it removed; other managers lose the fields it changed or removed. Never conflicts.
   * Throws SchemaError when either object does not fit the schema.
   */
  update(live: JsonValue, next: JsonValue, version: string, managers: ManagedFieldSets, manager: string): { object: JsonValue; managers: ManagedFieldSets } {
    validate(live, this.#schema, { allowDuplicates: true }, 'live');
    validate(next, this.#schema, { allowDuplicates: true }, 'new');
    const out = this.#reconcile(managers);
    const cmp = this.#updateOthers(live, next, version, out, manager, true);
    const previous = out.get(manager)?.set ?? FieldSet.empty();
    const set = this.#exclude(previous.difference(cmp.removed).union(cmp.modified).union(cmp.added), version);
    if (set.isEmpty()) out.delete(manager);
    else out.set(manager, { set, apiVersion: version, applied: false });
    return { object: next, managers: out };
  }

  /**
   * A server-side apply of `config` by `manager`. Returns the new object, or null when the apply leaves
   * the live object exactly as it was (upstream's nil: the managers may still have changed, e.g. a
   * second applier now shares fields; kube-apiserver then keeps the live object and does not touch the
   * manager's timestamp). Throws ConflictsError unless `force`, and SchemaError when the configuration
   * (no duplicate list items allowed) or the live object (duplicates allowed) does not fit the schema.
   */
  apply(
    live: JsonValue,
    config: JsonValue,
    version: string,
    managers: ManagedFieldSets,
    manager: string,
    force: boolean,
  ): { object: JsonValue | null; managers: ManagedFieldSets } {
    validate(config, this.#schema, {}, 'config');
    validate(live, this.#schema, { allowDuplicates: true }, 'live');
    const out = this.#reconcile(managers);
    const merged = mergeValues(live, config, this.#atom);
    if (merged.errors.length > 0) throw new Error(`failed to merge config: ${validationErrorsText(merged.errors)}`);
    const lastSet = out.get(manager);
    const set = this.#exclude(fieldSetOf(config, this.#atom), version);
    out.set(manager, { set, apiVersion: version, applied: true });
    const next = this.#prune(merged.value ?? null, out, lastSet);
    this.#updateOthers(live, next, version, out, manager, force);
    return { object: valuesEqual(live, next) ? null : next, managers: out };
  }

  /** Upstream's reconcileManagedFieldsWithSchemaChanges, into a fresh map. */
  #reconcile(managers: ManagedFieldSets): ManagedFieldSets {
    const out: ManagedFieldSets = new Map();
    for (const [manager, vs] of managers) {
      const reconciled = this.#reconciledSet(vs.set);
      out.set(manager, reconciled ? { set: reconciled, apiVersion: vs.apiVersion, applied: vs.applied } : vs);
    }
    return out;
  }

  /**
   * reconcileWithSchema against this updater's schema, remembered for frozen sets: the decoded sets
   * of stored entries are frozen and shared by everyone who decodes the same fieldsV1 text, so the
   * same set comes by on every write of objects of that shape. Safe because a frozen set cannot
   * change and the schema of an updater never does; the reconciled set handed out is frozen too.
   */
  #reconciledSet(set: FieldSet): FieldSet | undefined {
    if (!set.isFrozen()) return reconcileWithSchema(set, this.#atom);
    let reconciled = this.#reconciled.get(set);
    if (reconciled === undefined) {
      reconciled = reconcileWithSchema(set, this.#atom)?.freeze() ?? null;
      this.#reconciled.set(set, reconciled);
    }
    return reconciled ?? undefined;
  }

  #exclude(set: FieldSet, version: string): FieldSet {
    const ignored = this.#ignored.get(version);
    return ignored ? set.recursiveDifference(ignored) : set;
  }

  /**
   * Upstream's update step, over `managers` in place (a private copy): every manager but `current`
   * loses what the change from `live` to `next` modified, added or removed of its fields; fields it owned
   * that were modified or added are conflicts, thrown unless `force`. Returns the comparison as seen at
   * `version`.
   */
  #updateOthers(live: JsonValue, next: JsonValue, version: string, managers: ManagedFieldSets, current: string, force: boolean): VersionComparison {
    const raw = compareValues(live, next, this.#atom);
    if (raw.errors.length > 0) throw new Error(`failed to compare objects: ${validationErrorsText(raw.errors)}`);
    const base = {
      added: FieldSet.fromPaths(raw.comparison.added),
      modified: FieldSet.fromPaths(raw.comparison.modified),
      removed: FieldSet.fromPaths(raw.comparison.removed),
    };
    const byVersion = new Map<string, VersionComparison>();
    const at = (v: string): VersionComparison => {
      let cmp = byVersion.get(v);
      if (!cmp) {
        const added = this.#exclude(base.added, v);
        const modified = this.#exclude(base.modified, v);
        cmp = { added, modified, removed: this.#exclude(base.removed, v), changed: modified.union(added) };
        byVersion.set(v, cmp);
      }
      return cmp;
    };
    const own = at(version);

    const conflicts = new Map<string, FieldSet>();
    const removed = new Map<string, FieldSet>();
    for (const [manager, vs] of managers) {
      if (manager === current) continue;
      const cmp = at(vs.apiVersion);
      const conflicting = vs.set.intersection(cmp.changed);
      if (!conflicting.isEmpty()) conflicts.set(manager, conflicting);
      if (!cmp.removed.isEmpty()) removed.set(manager, cmp.removed);
    }
    if (!force && conflicts.size > 0) throw new ConflictsError(conflictsFromManagers(conflicts));

    for (const [manager, conflicting] of conflicts) {
      const vs = managers.get(manager)!;
      managers.set(manager, { ...vs, set: vs.set.difference(conflicting) });
    }
    for (const [manager, gone] of removed) {
      const vs = managers.get(manager)!;
      managers.set(manager, { ...vs, set: vs.set.difference(gone) });
    }
    for (const [manager, vs] of [...managers]) if (vs.set.isEmpty()) managers.delete(manager);
    return own;
  }

  /**
   * The set with its named fields; remembered for frozen sets (the decoded sets of stored entries,
   * which come by again on every apply to objects of that shape), as #reconciledSet is and for the
   * same reasons. The result of a frozen set is frozen too.
   */
  #named(set: FieldSet): FieldSet {
    if (!set.isFrozen()) return namedFieldsAsMembers(set, this.#atom);
    let named = this.#namedSets.get(set);
    if (named === undefined) this.#namedSets.set(set, (named = namedFieldsAsMembers(set, this.#atom).freeze()));
    return named;
  }

  #fields(v: JsonValue): FieldSet {
    return fieldSetOf(v, this.#atom);
  }

  /**
   * Upstream's prune: removes what the applier applied last time, then puts back whatever anyone
   * (the applier's new configuration included) owns, and whatever was never the applier's to remove.
   */
  #prune(merged: JsonValue, managers: ManagedFieldSets, lastSet: VersionedSet | undefined): JsonValue {
    if (!lastSet || lastSet.set.isEmpty()) return merged;
    // The merged object's set is needed by both add-back steps; the object does not change in between.
    const mergedNamed = this.#named(this.#fields(merged));
    // Both the first removal and the dangling-items step need the applier's last set with its named fields.
    const lastNamed = this.#named(lastSet.set);
    let pruned = removeFrom(merged, lastNamed, this.#atom);
    pruned = this.#addBackOwned(merged, mergedNamed, pruned, lastSet.apiVersion, managers);
    return this.#addBackDangling(merged, mergedNamed, pruned, lastNamed);
  }

  /**
   * Upstream's addBackOwnedItems: per apiVersion (the pruned set's version first, as upstream does to
   * keep conversions possible), everything the managers at that version own goes back in.
   */
  #addBackOwned(merged: JsonValue, mergedNamed: FieldSet, pruned: JsonValue, prunedVersion: string, managers: ManagedFieldSets): JsonValue {
    const byVersion = new Map<string, FieldSet>();
    for (const vs of managers.values()) {
      const prior = byVersion.get(vs.apiVersion);
      byVersion.set(vs.apiVersion, prior ? prior.union(vs.set) : vs.set);
    }
    // After the pruned version, upstream goes through the others in Go's (random) map order; sorted
    // here so that the outcome is deterministic. Each step keeps what the previous one kept, and the
    // dangling-items step below restores whatever was not the applier's, so the order hardly matters.
    const others = [...byVersion.keys()].filter((v) => v !== prunedVersion).sort();
    const order = byVersion.has(prunedVersion) ? [prunedVersion, ...others] : others;
    for (const version of order) {
      const keep = this.#named(this.#fields(pruned)).union(this.#named(byVersion.get(version)!));
      pruned = removeFrom(merged, mergedNamed.difference(keep), this.#atom);
    }
    return pruned;
  }

  /**
   * Upstream's addBackDanglingItems: only what the applier's last applied set names may stay removed;
   * anything else prune took out (unowned fields, fields of updaters that were not conflicts) comes back.
   */
  #addBackDangling(merged: JsonValue, mergedNamed: FieldSet, pruned: JsonValue, lastNamed: FieldSet): JsonValue {
    const prunedNamed = this.#named(this.#fields(pruned));
    return removeFrom(merged, mergedNamed.difference(prunedNamed).intersection(lastNamed), this.#atom);
  }
}
