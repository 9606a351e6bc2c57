/**
 * managedFields across a parent object and its scale subresource, as upstream's ScaleHandler moves
 * them: the scale's field manager works on an autoscaling/v1 Scale whose entries are the parent's
 * that own the replicas path (mapped to `.spec.replicas`), and its result goes back into the
 * parent's entries (the scale managers' `.spec.replicas` mapped to the parent's replicas path, the
 * path taken from parent entries whose manager no longer owns it on the scale).
 *
 * The parent's replicas path is known per apiVersion (a CRD's versions may name different paths, or
 * have no scale at all: null); parent entries of an apiVersion not in the mappings are dropped on
 * the way back, as upstream drops them.
 */
import { fieldElement, FieldSet, type Path } from '../../ssa/fieldpath/index.ts';
import type { VersionedSet } from '../../ssa/updater.ts';
import { decodeManagedFields } from './decode.ts';
import type { ManagedFieldsEntry } from './entry.ts';
import { encodeManagedFields } from './encode.ts';
import { emptyManaged } from './managed.ts';

/** The replicas path of the parent per apiVersion (`group/version`); null for a version without scale. */
export type ReplicasPathMappings = ReadonlyMap<string, Path | null>;

const SCALE_API_VERSION = 'autoscaling/v1';
const REPLICAS_IN_SCALE: Path = [fieldElement('spec'), fieldElement('replicas')];

/** A dot path (`.spec.replicas`, the CRD's specReplicasPath) as a field path. */
export function replicasPath(dotted: string): Path {
  return (dotted.startsWith('.') ? dotted.slice(1) : dotted).split('.').map((name) => fieldElement(name));
}

export class ScaleFieldsHandler {
  readonly #parentEntries: unknown;
  readonly #groupVersion: string;
  readonly #mappings: ReplicasPathMappings;

  /** `groupVersion`: the parent's apiVersion the request is served in. */
  constructor(parentEntries: unknown, groupVersion: string, mappings: ReplicasPathMappings) {
    this.#parentEntries = parentEntries;
    this.#groupVersion = groupVersion;
    this.#mappings = mappings;
  }

  /**
   * The parent's entries as the Scale's: only those owning the replicas path of their apiVersion,
   * each now owning `.spec.replicas` at autoscaling/v1 (identity and time kept). Throws
   * ManagedFieldsDecodeError when the parent's entries do not decode.
   */
  toSubresource(): ManagedFieldsEntry[] | undefined {
    const parent = decodeManagedFields(this.#parentEntries);
    const out = emptyManaged();
    for (const [manager, versioned] of parent.fields) {
      const path = this.#mappings.get(versioned.apiVersion);
      if (!path || !versioned.set.has(path)) continue;
      out.fields.set(manager, { set: FieldSet.fromPaths([REPLICAS_IN_SCALE]), apiVersion: SCALE_API_VERSION, applied: versioned.applied });
      out.times.set(manager, parent.times.get(manager));
    }
    return encodeManagedFields(out);
  }

  /**
   * The parent's entries after the scale's field manager left `scaleEntries`: a parent entry owning
   * the replicas path loses it unless its manager still has a scale entry (kept as it is then); the
   * other scale managers owning `.spec.replicas` become entries owning the replicas path at the
   * served apiVersion, with the time the parent had for them (none for a new manager, as upstream).
   */
  toParent(scaleEntries: unknown): ManagedFieldsEntry[] | undefined {
    const parent = decodeManagedFields(this.#parentEntries);
    const scale = decodeManagedFields(scaleEntries).fields;
    const out = emptyManaged();
    const keep = (manager: string, versioned: VersionedSet) => {
      out.fields.set(manager, versioned);
      out.times.set(manager, parent.times.get(manager));
    };
    for (const [manager, versioned] of parent.fields) {
      if (!this.#mappings.has(versioned.apiVersion)) continue;
      const path = this.#mappings.get(versioned.apiVersion);
      if (!path || !versioned.set.has(path)) {
        keep(manager, versioned);
        continue;
      }
      if (!scale.has(manager)) {
        const rest = versioned.set.difference(FieldSet.fromPaths([path]));
        if (!rest.isEmpty()) keep(manager, { set: rest, apiVersion: versioned.apiVersion, applied: versioned.applied });
      } else {
        keep(manager, versioned);
        scale.delete(manager);
      }
    }
    const ownPath = this.#mappings.get(this.#groupVersion) ?? null;
    for (const [manager, versioned] of scale) {
      if (!versioned.set.has(REPLICAS_IN_SCALE)) continue;
      out.fields.set(manager, { set: ownPath ? FieldSet.fromPaths([ownPath]) : FieldSet.empty(), apiVersion: this.#groupVersion, applied: versioned.applied });
      out.times.set(manager, parent.times.get(manager));
    }
    return encodeManagedFields(out);
  }
}
