/**
 * Upstream's merge.Updater: who owns which fields after an update or an apply, and the object an apply
 * produces (the configuration merged over the live object, with what the applier stopped applying
 * pruned unless someone else still owns it).
 *
 * Sets recorded at another apiVersion are compared against the objects converted to that version and
 * typed by its schema, as upstream does, when the caller gives a converter (custom resources with
 * several versions). Without one (built-in kinds: one version each here) they are compared against the
 * very same objects, which is what upstream's conversion comes to for them; a set's apiVersion still
 * selects the ignored fields that apply to it, and is kept as recorded.
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
import { validateValue } from './typed/validate.ts';
import { ConversionFailedError, ConversionPending, type VersionConverter } from './version-converter.ts';

export { ConflictsError, type Conflict } from './conflicts.ts';
export { ConversionFailedError, ConversionPending, type VersionConverter } from './version-converter.ts';

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

/** The request's version and the converter of one call (none: every set is compared at the request's version). */
interface CallVersions {
  readonly version: string;
  readonly converter: VersionConverter | undefined;
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
   * every field it removed; other managers lose the fields it changed or removed (compared at their own
   * version through `converter`, when given). Never conflicts.
   * Throws SchemaError when either object does not fit the schema, ConversionFailedError when a
   * conversion fails, and lets the converter's ConversionPending through.
   */
  update(
    live: JsonValue,
    next: JsonValue,
    version: string,
    managers: ManagedFieldSets,
    manager: string,
    converter?: VersionConverter,
  ): { object: JsonValue; managers: ManagedFieldSets } {
    validate(live, this.#schema, { allowDuplicates: true }, 'live');
    validate(next, this.#schema, { allowDuplicates: true }, 'new');
    const call: CallVersions = { version, converter };
    const out = this.#reconcile(managers, call);
    const cmp = this.#updateOthers(live, next, call, out, manager, true);
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
   * Sets of other versions are compared (and pruning done) at their version through `converter`, as
   * update's are.
   */
  apply(
    live: JsonValue,
    config: JsonValue,
    version: string,
    managers: ManagedFieldSets,
    manager: string,
    force: boolean,
    converter?: VersionConverter,
  ): { object: JsonValue | null; managers: ManagedFieldSets } {
    validate(config, this.#schema, {}, 'config');
    validate(live, this.#schema, { allowDuplicates: true }, 'live');
    const call: CallVersions = { version, converter };
    const out = this.#reconcile(managers, call);
    const merged = mergeValues(live, config, this.#atom);
    if (merged.errors.length > 0) throw new Error(`failed to merge config: ${validationErrorsText(merged.errors)}`);
    const lastSet = out.get(manager);
    const set = this.#exclude(fieldSetOf(config, this.#atom), version);
    out.set(manager, { set, apiVersion: version, applied: true });
    const next = this.#prune(merged.value ?? null, out, lastSet, call);
    this.#updateOthers(live, next, call, out, manager, force);
    return { object: valuesEqual(live, next) ? null : next, managers: out };
  }

  /** The schema objects of `apiVersion` are typed by in this call; undefined for a version the kind does not have. */
  #schemaAt(call: CallVersions, apiVersion: string): ObjectSchema | undefined {
    if (!call.converter || apiVersion === call.version) return this.#schema;
    return call.converter.schemaOf(apiVersion);
  }

  #atomAt(call: CallVersions, apiVersion: string): Atom {
    const schema = this.#schemaAt(call, apiVersion);
    return schema === this.#schema || !schema ? this.#atom : objectAtom(schema);
  }

  /**
   * Upstream's Converter.Convert: `value` (at `from`) converted to `to` and typed by its schema.
   * Undefined for a version the kind does not have (upstream's IsMissingVersionError); failures are
   * ConversionFailedError worded `${what}: <cause>`. Without a converter, or to the same version,
   * the value itself.
   */
  #convert(call: CallVersions, value: JsonValue, from: string, to: string, what: string): JsonValue | undefined {
    if (!call.converter || from === to) return value;
    const schema = this.#schemaAt(call, to);
    if (!schema) return undefined;
    let converted: JsonValue;
    try {
      converted = call.converter.convert(value, to);
    } catch (err) {
      if (err instanceof ConversionPending) throw err;
      throw new ConversionFailedError(`${what}: ${(err as Error).message}`, err);
    }
    const errors = validateValue(converted, objectAtom(schema), true);
    if (errors.length > 0) throw new ConversionFailedError(`${what}: ${validationErrorsText(errors)}`);
    return converted;
  }

  /**
   * Upstream's reconcileManagedFieldsWithSchemaChanges, into a fresh map: each set against the schema
   * of its version; a set of a version the kind no longer has is dropped, as upstream drops it.
   */
  #reconcile(managers: ManagedFieldSets, call: CallVersions): ManagedFieldSets {
    const out: ManagedFieldSets = new Map();
    for (const [manager, vs] of managers) {
      let reconciled: FieldSet | undefined;
      if (!call.converter || vs.apiVersion === call.version) reconciled = this.#reconciledSet(vs.set);
      else {
        const schema = call.converter.schemaOf(vs.apiVersion);
        if (!schema) continue;
        reconciled = reconcileWithSchema(vs.set, objectAtom(schema));
      }
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
   * loses what the change from `live` to `next` modified, added or removed of its fields, compared at
   * the manager's version (the objects converted there); fields it owned that were modified or added
   * are conflicts, thrown unless `force`. A manager of a version the kind does not have is dropped.
   * Returns the comparison as seen at the request's version.
   */
  #updateOthers(live: JsonValue, next: JsonValue, call: CallVersions, managers: ManagedFieldSets, current: string, force: boolean): VersionComparison {
    const { version } = call;
    const comparing = (atom: Atom, from: JsonValue, to: JsonValue) => {
      const raw = compareValues(from, to, atom);
      if (raw.errors.length > 0) throw new Error(`failed to compare objects: ${validationErrorsText(raw.errors)}`);
      return { added: FieldSet.fromPaths(raw.comparison.added), modified: FieldSet.fromPaths(raw.comparison.modified), removed: FieldSet.fromPaths(raw.comparison.removed) };
    };
    const base = comparing(this.#atom, live, next);
    const filtered = (raw: typeof base, v: string): VersionComparison => {
      const added = this.#exclude(raw.added, v);
      const modified = this.#exclude(raw.modified, v);
      return { added, modified, removed: this.#exclude(raw.removed, v), changed: modified.union(added) };
    };
    const byVersion = new Map<string, VersionComparison | null>();
    const at = (v: string): VersionComparison | null => {
      let cmp = byVersion.get(v);
      if (cmp === undefined) {
        if (!call.converter || v === version) cmp = filtered(base, v);
        else {
          const oldAt = this.#convert(call, live, version, v, 'failed to convert old object');
          const newAt = oldAt === undefined ? undefined : this.#convert(call, next, version, v, 'failed to convert new object');
          cmp = newAt === undefined ? null : filtered(comparing(this.#atomAt(call, v), oldAt!, newAt), v);
        }
        byVersion.set(v, cmp);
      }
      return cmp;
    };
    const own = at(version)!;

    const conflicts = new Map<string, FieldSet>();
    const removed = new Map<string, FieldSet>();
    for (const [manager, vs] of managers) {
      if (manager === current) continue;
      const cmp = at(vs.apiVersion);
      if (!cmp) {
        managers.delete(manager);
        continue;
      }
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
   * The set with its named fields under `atom`; remembered for frozen sets under the updater's own
   * schema (the decoded sets of stored entries, which come by again on every apply to objects of that
   * shape), as #reconciledSet is and for the same reasons. The result of a frozen set is frozen too.
   */
  #named(set: FieldSet, atom: Atom = this.#atom): FieldSet {
    if (!set.isFrozen() || atom !== this.#atom) return namedFieldsAsMembers(set, atom);
    let named = this.#namedSets.get(set);
    if (named === undefined) this.#namedSets.set(set, (named = namedFieldsAsMembers(set, this.#atom).freeze()));
    return named;
  }

  #fields(v: JsonValue, atom: Atom = this.#atom): FieldSet {
    return fieldSetOf(v, atom);
  }

  /**
   * Upstream's prune: removes what the applier applied last time, then puts back whatever anyone
   * (the applier's new configuration included) owns, and whatever was never the applier's to remove.
   * Done at the version of the applier's last set (the merged object converted there), and the result
   * converted back to the request's version.
   */
  #prune(merged: JsonValue, managers: ManagedFieldSets, lastSet: VersionedSet | undefined, call: CallVersions): JsonValue {
    if (!lastSet || lastSet.set.isEmpty()) return merged;
    // Without a converter every version's objects are the request's.
    const lastVersion = call.converter ? lastSet.apiVersion : call.version;
    const lastMerged = this.#convert(call, merged, call.version, lastVersion, 'failed to prune fields: failed to convert merged object to last applied version');
    if (lastMerged === undefined) return merged;
    const atom = this.#atomAt(call, lastVersion);
    // The merged object's set is needed by both add-back steps; the object does not change in between.
    const mergedNamed = this.#named(this.#fields(lastMerged, atom), atom);
    // Both the first removal and the dangling-items step need the applier's last set with its named fields.
    const lastNamed = this.#named(lastSet.set, atom);
    const removed = removeFrom(lastMerged, lastNamed, atom);
    const owned = this.#addBackOwned(lastMerged, mergedNamed, { value: removed, version: lastVersion }, managers, call);
    const pruned = this.#addBackDangling(lastMerged, mergedNamed, owned, lastNamed, lastVersion, call);
    return this.#convert(call, pruned, lastVersion, call.version, 'failed to prune fields') ?? pruned;
  }

  /**
   * Upstream's addBackOwnedItems: per apiVersion (the pruned set's version first, as upstream does to
   * keep conversions possible), everything the managers at that version own goes back in, the merged
   * and pruned objects converted to that version first. Returns the pruned object and its version.
   */
  #addBackOwned(merged: JsonValue, mergedNamed: FieldSet, pruned: AtVersion, managers: ManagedFieldSets, call: CallVersions): AtVersion {
    const byVersion = new Map<string, FieldSet>();
    for (const vs of managers.values()) {
      const prior = byVersion.get(vs.apiVersion);
      byVersion.set(vs.apiVersion, prior ? prior.union(vs.set) : vs.set);
    }
    // After the pruned version, upstream goes through the others in Go's (random) map order; sorted
    // here so that the outcome is deterministic. Each step keeps what the previous one kept, and the
    // dangling-items step below restores whatever was not the applier's, so the order hardly matters.
    const prunedVersion = pruned.version;
    const others = [...byVersion.keys()].filter((v) => v !== prunedVersion).sort();
    const order = byVersion.has(prunedVersion) ? [prunedVersion, ...others] : others;
    let current = { merged, mergedNamed, pruned: pruned.value, version: prunedVersion };
    const failed = 'failed to prune fields: failed add back owned items';
    for (const version of order) {
      const target = call.converter ? version : current.version;
      if (target !== current.version) {
        const m = this.#convert(call, current.merged, current.version, target, `${failed}: failed to convert merged object at version ${target}`);
        if (m === undefined) continue;
        const p = this.#convert(call, current.pruned, current.version, target, `${failed}: failed to convert pruned object at version ${target}`);
        if (p === undefined) continue;
        const atom = this.#atomAt(call, target);
        current = { merged: m, mergedNamed: this.#named(this.#fields(m, atom), atom), pruned: p, version: target };
      }
      const atom = this.#atomAt(call, current.version);
      const keep = this.#named(this.#fields(current.pruned, atom), atom).union(this.#named(byVersion.get(version)!, atom));
      current.pruned = removeFrom(current.merged, current.mergedNamed.difference(keep), atom);
    }
    return { value: current.pruned, version: current.version };
  }

  /**
   * Upstream's addBackDanglingItems: only what the applier's last applied set names may stay removed;
   * anything else prune took out (unowned fields, fields of updaters that were not conflicts) comes back.
   * `merged` is at the last applied version; the pruned object is converted there.
   */
  #addBackDangling(merged: JsonValue, mergedNamed: FieldSet, pruned: AtVersion, lastNamed: FieldSet, lastVersion: string, call: CallVersions): JsonValue {
    const what = 'failed to prune fields: failed add back dangling items: failed to convert pruned object to last applied version';
    const prunedAt = this.#convert(call, pruned.value, pruned.version, lastVersion, what);
    if (prunedAt === undefined) return merged;
    const atom = this.#atomAt(call, lastVersion);
    const prunedNamed = this.#named(this.#fields(prunedAt, atom), atom);
    return removeFrom(merged, mergedNamed.difference(prunedNamed).intersection(lastNamed), atom);
  }
}

/** A value and the apiVersion it is an object of. */
interface AtVersion {
  readonly value: JsonValue;
  readonly version: string;
}
