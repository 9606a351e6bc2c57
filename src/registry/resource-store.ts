import {
  alreadyExists,
  ApiError,
  conflict,
  invalid,
  namespaceTerminating,
  notFound,
  successStatus,
  type FieldError,
  type QualifiedResource,
} from '../api/errors.ts';
import type { KubeObject, StoredKubeObject, SuccessStatus } from '../api/types.ts';
import { StorageError, type ObjectKey, type Storage, type StoredObject } from '../storage/storage.ts';
import type { DeleteOptions } from './delete-options.ts';
import { apiVersionOf, type KindDefinition } from './kind.ts';
import { storageFor, storageRefOf } from './storage-view.ts';
import { canonicalJson, carryUpdateFields, fillCreateFields, generateName, nowTimestamp, specOf } from './system-fields.ts';
import { checkName, checkNamespace, checkTypeMeta } from './body-checks.ts';
import { toApiError } from './storage-errors.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './validation/object-meta.ts';
import { cloneJson } from '../codecs/deep-json.ts';

/** Checks that a namespaced create may go into the namespace (exists, not terminating). */
export interface NamespaceGate {
  assertWritable(namespace: string, resource: QualifiedResource, name: string): Promise<void>;
}

export interface WriteOptions {
  readonly dryRun: boolean;
}

export interface UpdateOptions extends WriteOptions {
  /** '' for the main resource, or the subresource (status, finalize …). */
  readonly subresource: string;
}

export type DeleteOutcome = { readonly gone: false; readonly object: StoredObject } | { readonly gone: true; readonly status: SuccessStatus; readonly object: StoredObject };

const GUARANTEED_UPDATE_RETRIES = 16;

/**
 * The generic store: runs a kind's strategy around storage in a fixed order
 * (system fields → prepare → canonicalize → validate → gate → write) and turns storage errors into
 * API errors. It never names a specific kind.
 */
export class ResourceStore {
  readonly kind: KindDefinition;
  readonly qualified: QualifiedResource;
  /** Storage as this kind sees it (objects in the kind's form, whatever form they are stored in). */
  readonly storage: Storage;
  readonly #storage: Storage;
  readonly #namespaces: NamespaceGate;

  constructor(kind: KindDefinition, storage: Storage, namespaces: NamespaceGate) {
    this.kind = kind;
    this.qualified = { group: kind.group, resource: kind.plural };
    this.storage = storageFor(kind, storage);
    this.#storage = this.storage;
    this.#namespaces = namespaces;
  }

  key(namespace: string, name: string): ObjectKey {
    return { ...storageRefOf(this.kind), namespace: this.kind.namespaced ? namespace : '', name };
  }

  /** Reads one object; with `minVersion` (NotOlderThan) the store must have reached that version. */
  async get(namespace: string, name: string, minVersion?: number): Promise<StoredObject> {
    if (minVersion !== undefined) await this.#storage.waitForVersion(minVersion).catch((err) => Promise.reject(this.#toApiError(err, name)));
    const found = await this.#storage.get(this.key(namespace, name));
    if (!found) throw notFound(this.qualified, name);
    return found;
  }

  async create(namespace: string, body: KubeObject, options: WriteOptions): Promise<StoredObject> {
    checkTypeMeta(this.kind, body);
    const meta = (body.metadata ??= {});
    checkNamespace(this.kind, meta, namespace);
    // Admission (NamespaceLifecycle) runs before the kind's rules, so it judges the name as sent.
    if (this.kind.namespaced) await this.#namespaces.assertWritable(namespace, this.qualified, typeof meta.name === 'string' ? meta.name : '');
    const generate = !meta.name && typeof meta.generateName === 'string' && meta.generateName !== '';
    if (generate) meta.name = generateName(meta.generateName as string);

    const obj = fillCreateFields(body, this.kind.tracksGeneration);
    obj.apiVersion = apiVersionOf(this.kind);
    obj.kind = this.kind.kind;
    this.kind.strategy.prepareForCreate?.(obj);
    this.kind.strategy.canonicalize?.(obj);
    this.#validate(obj, validateObjectMeta(this.kind, obj), this.kind.strategy.validate?.(obj) ?? []);

    if (options.dryRun) {
      if (await this.#storage.get(this.key(namespace, obj.metadata.name))) throw alreadyExists(this.qualified, obj.metadata.name);
      return { object: obj, text: JSON.stringify(obj), resourceVersion: 0 };
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#storage.create(this.key(namespace, obj.metadata.name), obj, { requireNamespace: this.kind.namespaced });
      } catch (err) {
        // A generated name that collides gets a fresh suffix, a few times, before giving up.
        if (generate && err instanceof StorageError && err.code === 'Exists' && attempt < 8) {
          obj.metadata.name = generateName(meta.generateName as string);
          continue;
        }
        if (err instanceof StorageError && err.code === 'NamespaceMissing') throw notFound({ group: '', resource: 'namespaces' }, namespace);
        if (err instanceof StorageError && err.code === 'NamespaceTerminating') throw namespaceTerminating(this.qualified, obj.metadata.name, namespace);
        throw this.#toApiError(err, obj.metadata.name);
      }
    }
  }

  /**
   * PUT. With metadata.resourceVersion the write is conditional (409 on mismatch); without it the
   * kind decides whether an unconditional update is allowed. A missing object is created where the
   * kind allows create-on-update (the result says so, for the 201).
   */
  async update(
    namespace: string,
    name: string,
    body: KubeObject,
    options: UpdateOptions,
  ): Promise<{ stored: StoredObject; created: boolean }> {
    checkTypeMeta(this.kind, body);
    const meta = (body.metadata ??= {});
    checkNamespace(this.kind, meta, namespace);
    checkName(meta, name);
    const precondition = meta.resourceVersion ? this.#parseVersion(meta.resourceVersion, name) : undefined;

    return this.#guaranteedUpdate(namespace, name, precondition, async (current) => {
      if (!current) {
        if (!this.kind.allowCreateOnUpdate || options.subresource) throw notFound(this.qualified, name);
        if (precondition !== undefined) throw notFound(this.qualified, name);
        return { create: cloneJson(body) };
      }
      if (precondition === undefined && !this.kind.allowUnconditionalUpdate) {
        throw invalid(this.kind.group, this.kind.kind, name, [
          { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', rawValue: '0x0', detail: 'must be specified for an update' },
        ]);
      }
      const incomingUid = body.metadata?.uid;
      if (incomingUid && incomingUid !== current.object.metadata.uid) {
        throw conflict(this.qualified, name, `Precondition failed: UID in precondition: ${incomingUid}, UID in object meta: ${current.object.metadata.uid}`);
      }
      return { update: this.#prepareUpdate(cloneJson(body), current.object, options.subresource) };
    }, options);
  }

  /**
   * Read-modify-write with retries, for patches and controllers: `mutate` gets a copy of the current
   * object and returns the desired one. With `precondition` a changed object is a 409 instead.
   */
  async mutate(
    namespace: string,
    name: string,
    mutate: (current: StoredKubeObject) => KubeObject | Promise<KubeObject>,
    options: UpdateOptions & { precondition?: number },
  ): Promise<StoredObject> {
    const result = await this.#guaranteedUpdate(namespace, name, options.precondition, async (current) => {
      if (!current) throw notFound(this.qualified, name);
      const desired = await mutate(cloneJson(current.object));
      checkTypeMeta(this.kind, desired);
      const meta = (desired.metadata ??= {});
      checkName(meta, name);
      checkNamespace(this.kind, meta, namespace);
      return { update: this.#prepareUpdate(desired, current.object, options.subresource) };
    }, options);
    return result.stored;
  }

  async delete(namespace: string, name: string, options: DeleteOptions): Promise<DeleteOutcome> {
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < GUARANTEED_UPDATE_RETRIES; attempt++) {
      const current = await this.#storage.get(key);
      if (!current) throw notFound(this.qualified, name);
      this.#checkDeletePreconditions(current, options, name);
      const obj = current.object;

      if (this.#pendingFinalizers(obj).length > 0) {
        // Terminating: the object stays until the last finalizer is gone.
        if (obj.metadata.deletionTimestamp) return { gone: false, object: current };
        const next = cloneJson(obj);
        next.metadata.deletionTimestamp = nowTimestamp();
        next.metadata.deletionGracePeriodSeconds = 0;
        this.kind.strategy.prepareForDelete?.(next);
        if (options.dryRun) return { gone: false, object: { object: next, text: JSON.stringify(next), resourceVersion: current.resourceVersion } };
        try {
          return { gone: false, object: await this.#storage.update(key, next, current.resourceVersion) };
        } catch (err) {
          if (err instanceof StorageError && err.code === 'Conflict') continue;
          throw this.#toApiError(err, name);
        }
      }
      if (options.dryRun) return { gone: true, status: this.#deletedStatus(obj), object: current };
      try {
        const deleted = await this.#storage.delete(key, current.resourceVersion);
        return { gone: true, status: this.#deletedStatus(obj), object: deleted };
      } catch (err) {
        if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound') && attempt + 1 < GUARANTEED_UPDATE_RETRIES) {
          continue;
        }
        throw this.#toApiError(err, name);
      }
    }
    throw conflict(this.qualified, name, 'too many concurrent changes; please retry');
  }

  translate(err: unknown, name: string): unknown {
    return this.#toApiError(err, name);
  }

  #deletedStatus(obj: StoredKubeObject): SuccessStatus {
    return successStatus({
      name: obj.metadata.name,
      group: this.kind.group || undefined,
      kind: this.kind.plural,
      uid: obj.metadata.uid,
    });
  }

  /** Finalizers that keep a deleted object: metadata.finalizers plus any the kind adds (Namespace spec). */
  #pendingFinalizers(obj: KubeObject): string[] {
    const own = Array.isArray(obj.metadata?.finalizers) ? obj.metadata.finalizers : [];
    return [...own, ...(this.kind.strategy.extraFinalizers?.(obj) ?? [])];
  }

  #checkDeletePreconditions(current: StoredObject, options: DeleteOptions, name: string): void {
    const p = options.preconditions;
    if (!p) return;
    if (p.uid && p.uid !== current.object.metadata.uid) {
      throw conflict(this.qualified, name, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${current.object.metadata.uid}`);
    }
    if (p.resourceVersion && p.resourceVersion !== current.object.metadata.resourceVersion) {
      throw conflict(
        this.qualified,
        name,
        `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${current.object.metadata.resourceVersion}`,
      );
    }
  }

  #prepareUpdate(obj: KubeObject, old: StoredKubeObject, subresource: string): StoredKubeObject {
    obj.apiVersion = apiVersionOf(this.kind);
    obj.kind = this.kind.kind;
    let next: StoredKubeObject;
    if (subresource === 'status') {
      // A status write changes status and nothing else.
      next = { ...cloneJson(old), status: obj.status } as StoredKubeObject;
      if (obj.status === undefined) delete next.status;
    } else if (subresource) {
      const prepare = this.kind.strategy.prepareSubresourceUpdate;
      if (!prepare) throw notFound(this.qualified, `${old.metadata.name}/${subresource}`);
      next = prepare(subresource, obj, cloneJson(old)) as StoredKubeObject;
    } else {
      next = carryUpdateFields(obj, old);
      if (this.kind.hasStatus) {
        if (old.status === undefined) delete next.status;
        else next.status = cloneJson(old.status);
      }
      this.kind.strategy.prepareForUpdate?.(next, old);
    }
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    this.kind.strategy.canonicalize?.(next);
    if (this.kind.tracksGeneration && specOf(next) !== specOf(old)) {
      next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
    const errors = [...validateObjectMeta(this.kind, next), ...validateObjectMetaUpdate(next, old)];
    if (old.metadata.deletionTimestamp) {
      const before = new Set(old.metadata.finalizers ?? []);
      const added = (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length > 0) {
        errors.push({
          type: 'FieldValueForbidden',
          field: 'metadata.finalizers',
          detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        });
      }
    }
    this.#validate(next, errors, this.kind.strategy.validateUpdate?.(next, old) ?? []);
    return next;
  }

  async #guaranteedUpdate(
    namespace: string,
    name: string,
    precondition: number | undefined,
    decide: (current: StoredObject | null) => Promise<{ create?: KubeObject; update?: StoredKubeObject }>,
    options: WriteOptions,
  ): Promise<{ stored: StoredObject; created: boolean }> {
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < GUARANTEED_UPDATE_RETRIES; attempt++) {
      const current = await this.#storage.get(key);
      if (current && precondition !== undefined && precondition !== current.resourceVersion) {
        throw conflict(this.qualified, name);
      }
      const decision = await decide(current);
      if (decision.create) {
        try {
          return { stored: await this.create(namespace, decision.create, options), created: true };
        } catch (err) {
          if (err instanceof ApiError && err.reason === 'AlreadyExists') continue;
          throw err;
        }
      }
      const next = decision.update as StoredKubeObject;
      const old = (current as StoredObject).object;
      if (canonicalJson(next) === canonicalJson(old)) {
        // A no-op update writes nothing and keeps the version, so watchers see no event.
        return { stored: current as StoredObject, created: false };
      }
      if (options.dryRun) return { stored: { object: next, text: JSON.stringify(next), resourceVersion: 0 }, created: false };
      try {
        if (next.metadata.deletionTimestamp && this.#pendingFinalizers(next).length === 0) {
          // The last finalizer went: the object leaves storage instead of being updated. The client
          // still gets the object it asked for (finalizers gone), as upstream answers such an update.
          const deleted = await this.#storage.delete(key, (current as StoredObject).resourceVersion);
          return { stored: { object: next, text: JSON.stringify(next), resourceVersion: deleted.resourceVersion }, created: false };
        }
        return { stored: await this.#storage.update(key, next, (current as StoredObject).resourceVersion), created: false };
      } catch (err) {
        if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound')) {
          if (precondition !== undefined && err.code === 'Conflict') throw conflict(this.qualified, name);
          continue;
        }
        throw this.#toApiError(err, name);
      }
    }
    throw conflict(this.qualified, name, 'too many concurrent changes; please retry');
  }

  #validate(obj: KubeObject, ...lists: FieldError[][]): void {
    const errors = lists.flat();
    if (errors.length > 0) throw invalid(this.kind.group, this.kind.kind, String(obj.metadata?.name ?? ''), errors);
  }

  #parseVersion(value: unknown, name: string): number {
    if (typeof value !== 'string' || !/^\d+$/.test(value)) {
      throw invalid(this.kind.group, this.kind.kind, name, [
        { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', value, detail: 'must be a decimal resource version' },
      ]);
    }
    return Number(value);
  }

  #toApiError(err: unknown, name: string): unknown {
    return toApiError(err, this.qualified, name);
  }
}
