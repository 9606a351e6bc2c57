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
import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject, StoredKubeObject, SuccessStatus } from '../api/types.ts';
import type { AdmissionAttributes, AdmissionOperation } from '../admission/attributes.ts';
import type { AdmissionChain } from '../admission/chain.ts';
import { StorageError, type ListCursor, type ObjectKey, type ResourceRef, type Storage, type StoredObject } from '../storage/storage.ts';
import type { DeleteOptions } from './delete-options.ts';
import { garbageCollectionFinalizers } from './gc-finalizers.ts';
import { apiVersionOf, subresourceOf, type KindDefinition, type SubresourceStrategy } from './kind.ts';
import { parseSelectors } from './filter.ts';
import { listPage, openListCursor, type ListPage } from './list-reader.ts';
import type { ListQuery } from './list-options.ts';
import { storageFor, storageRefOf } from './storage-view.ts';
import { canonicalJson, carryUpdateFields, fillCreateFields, generateName, nowTimestamp, specOf } from './system-fields.ts';
import { checkName, checkNamespace, checkTypeMeta } from './body-checks.ts';
import { toApiError } from './storage-errors.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './validation/object-meta.ts';
import { startWatch, type WatchSink, type WatchStarted } from './watch-start.ts';
import { cloneJson } from '../codecs/deep-json.ts';
import { fieldTrackingOf, type FieldTracking } from './field-tracking.ts';
import { restoreManagedFieldsAfterAdmission, storedEntriesIfOnlyTimesMoved, validateManagedFields } from './managed-fields/index.ts';

/**
 * What an update writes, as upstream's UpdatedObjectInfo: PUT and PATCH both describe their write
 * as a function from the stored object to the desired one, and share one update path.
 */
export interface UpdatedObjectInfo {
  /**
   * The desired object, built from a copy of the stored one (null when there is none: only a PUT on
   * a kind that creates on update gets that far). Called again when a concurrent write wins the race.
   */
  build(current: StoredKubeObject | null): KubeObject | Promise<KubeObject>;
  /** A conditional write: the stored version must be this one (409 otherwise). */
  readonly precondition?: number;
  /** The body is a whole object (PUT): it may create, and its uid is a precondition. */
  readonly wholeObject?: boolean;
  /**
   * Server-side apply: `build` records managedFields itself (so the store does not record an
   * Update), and a missing object is created from `build(null)` whatever the kind's create-on-update rule.
   */
  readonly apply?: boolean;
}

/** How a create came about, for the steps the store would otherwise repeat. */
export interface CreateOptions {
  /** managedFields were recorded already (an apply that creates). */
  readonly fieldsRecorded?: boolean;
}

/**
 * The outcome of a delete: `gone` once the object left storage (the answer is `status`, or the
 * object for kinds that return it), otherwise the object as it stays (marked for deletion).
 */
export type DeleteOutcome =
  | { readonly gone: false; readonly object: StoredObject }
  | { readonly gone: true; readonly object: StoredObject; readonly status?: SuccessStatus };

/** What callers of the store get back from storage, named here so that they need not import storage. */
export type { ListCursor, StoredObject, WatchHandle } from '../storage/storage.ts';

const GUARANTEED_UPDATE_RETRIES = 16;

/**
 * The generic store: runs a kind's strategy and the admission chain around storage in upstream's
 * order, and turns storage errors into API errors, so that callers (HTTP, controllers) never see a
 * storage error. It never names a specific kind. Every method takes the request's context.
 *
 * create: type checks → mutating admission → system fields → default → prepareForCreate →
 *   canonicalize → validate → warnings → validating admission → write.
 * update: build the desired object from the stored one → preconditions → mutating admission →
 *   system fields → default → prepareForUpdate (or the subresource's strategy) → canonicalize →
 *   validateUpdate → warnings → validating admission → write (a no-op writes nothing).
 * delete: preconditions → graceful period → admission → mark (finalizers, grace) or remove.
 */
export class ResourceStore {
  readonly kind: KindDefinition;
  readonly qualified: QualifiedResource;
  /** Storage as this kind sees it (objects in the kind's form, whatever form they are stored in). */
  readonly storage: Storage;
  /** metadata.managedFields: who wrote which fields, recorded on every write. */
  readonly fields: FieldTracking;
  readonly #admission: AdmissionChain;

  /** Where the kind's rows live (computed once: every request builds a key from it). */
  readonly #storageRef: ResourceRef;

  constructor(kind: KindDefinition, storage: Storage, admission: AdmissionChain) {
    this.kind = kind;
    this.qualified = { group: kind.group, resource: kind.plural };
    this.storage = storageFor(kind, storage);
    this.#storageRef = storageRefOf(kind);
    this.#admission = admission;
    this.fields = fieldTrackingOf(kind);
  }

  key(namespace: string, name: string): ObjectKey {
    const ref = this.#storageRef;
    return { group: ref.group, resource: ref.resource, namespace: this.kind.namespaced ? namespace : '', name };
  }

  /**
   * Reads one object; with `minVersion` (NotOlderThan) the store must have reached that version (0:
   * any version will do). Without it the read is consistent (the latest).
   */
  async get(ctx: RequestContext, namespace: string, name: string, minVersion?: number): Promise<StoredObject> {
    if (this.kind.computed) {
      const found = (await this.#computed(ctx)).find((o) => o.metadata?.name === name);
      if (!found) throw notFound(this.qualified, name);
      return { object: found as StoredKubeObject, text: JSON.stringify(found), resourceVersion: 0 };
    }
    try {
      // 0 (resourceVersion=0) accepts any version: nothing to wait for, and a watch cache may answer.
      if (minVersion) await this.storage.waitForVersion(minVersion);
      const found = await this.storage.get(this.key(namespace, name), minVersion !== undefined ? { minVersion } : undefined);
      if (!found) throw notFound(this.qualified, name);
      return found;
    } catch (err) {
      throw this.#toApiError(err, name);
    }
  }

  /** One page of a list (or the whole list), at the snapshot the resourceVersion rules pick. */
  async list(ctx: RequestContext, namespace: string | undefined, query: ListQuery, name?: string): Promise<ListPage> {
    if (this.kind.computed) {
      const { filter } = parseSelectors(this.kind, query.labelSelector, query.fieldSelector, name);
      const items = (await this.#computed(ctx)).filter((o) => !filter || filter.matches(o as StoredKubeObject));
      return { items: items.map((o) => JSON.stringify(o)), resourceVersion: String(await this.storage.currentVersion().catch(() => 0)) };
    }
    return listPage(this, namespace, query, name);
  }

  /** A list without a limit as a cursor over its snapshot (undefined for a paged list: use `list`). */
  openList(_ctx: RequestContext, namespace: string | undefined, query: ListQuery, name?: string): Promise<ListCursor | undefined> {
    // A computed kind's list is small and built whole.
    if (this.kind.computed) return Promise.resolve(undefined);
    return openListCursor(this, namespace, query, name);
  }

  /** The objects of a computed kind. */
  #computed(ctx: RequestContext): Promise<KubeObject[]> {
    return this.kind.computed!.list(ctx, this.storage);
  }

  /**
   * Starts a watch with upstream's start semantics (initial events, resourceVersion, WatchList) and
   * delivers its events to `sink`; errors before the first event are API errors.
   */
  watch(ctx: RequestContext, namespace: string | undefined, query: ListQuery, name: string | undefined, sink: WatchSink): Promise<WatchStarted | undefined> {
    return startWatch(this, ctx, namespace, query, name, sink);
  }

  async create(ctx: RequestContext, namespace: string, input: KubeObject, options: CreateOptions = {}): Promise<StoredObject> {
    checkTypeMeta(this.kind, input);
    let body = input;
    checkNamespace(this.kind, (body.metadata ??= {}), namespace);
    if (!options.fieldsRecorded) {
      // As upstream: the body is defaulted as the decoder would, then its fields are the creator's.
      this.kind.strategy.default?.(ctx, body);
      body = this.fields.recordUpdate(ctx, null, body);
    }
    const meta = (body.metadata ??= {});
    // Mutating admission runs before the kind's rules, so it judges the name as sent.
    if (this.#admission.mutates) await this.#admit(ctx, 'CREATE', namespace, typeof meta.name === 'string' ? meta.name : '', body);
    // Escalation checks (RBAC) see the object after mutation, before the kind's rules, as upstream's policy-based storage does.
    await this.kind.strategy.authorizeWrite?.(ctx, namespace, body);
    const generate = !meta.name && typeof meta.generateName === 'string' && meta.generateName !== '';
    if (generate) meta.name = generateName(meta.generateName as string);

    const obj = fillCreateFields(body, this.kind.tracksGeneration);
    obj.apiVersion = apiVersionOf(this.kind);
    obj.kind = this.kind.kind;
    const strategy = this.kind.strategy;
    strategy.default?.(ctx, obj);
    strategy.prepareForCreate?.(ctx, obj);
    strategy.canonicalize?.(ctx, obj);
    this.#validate(obj, validateObjectMeta(this.kind, obj), validateManagedFields(obj.metadata.managedFields, 'metadata.managedFields'), strategy.validate?.(ctx, obj) ?? []);
    ctx.warnings.push(...(strategy.warningsOnCreate?.(ctx, obj) ?? []));
    if (this.#admission.validates) await this.#admission.validate(this.#attributes(ctx, 'CREATE', namespace, obj.metadata.name, obj));

    try {
      if (ctx.dryRun) {
        if (await this.storage.get(this.key(namespace, obj.metadata.name))) throw alreadyExists(this.qualified, obj.metadata.name);
        return { object: obj, text: JSON.stringify(obj), resourceVersion: 0 };
      }
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.storage.create(this.key(namespace, obj.metadata.name), obj, { requireNamespace: this.kind.namespaced });
        } catch (err) {
          // A generated name that collides gets a fresh suffix, a few times, before giving up.
          if (generate && err instanceof StorageError && err.code === 'Exists' && attempt < 8) {
            obj.metadata.name = generateName(meta.generateName as string);
            continue;
          }
          throw err;
        }
      }
    } catch (err) {
      if (err instanceof StorageError && err.code === 'NamespaceMissing') throw notFound({ group: '', resource: 'namespaces' }, namespace);
      if (err instanceof StorageError && err.code === 'NamespaceTerminating') throw namespaceTerminating(this.qualified, obj.metadata.name, namespace);
      throw this.#toApiError(err, obj.metadata.name);
    }
  }

  /**
   * PUT: the body replaces the stored object. With metadata.resourceVersion the write is
   * conditional (409 on mismatch); without it the kind decides whether an unconditional update is
   * allowed. The body is checked (400s) before anything is read.
   */
  replace(ctx: RequestContext, namespace: string, name: string, body: KubeObject): Promise<{ stored: StoredObject; created: boolean }> {
    checkTypeMeta(this.kind, body);
    const meta = (body.metadata ??= {});
    checkNamespace(this.kind, meta, namespace);
    checkName(meta, name);
    const precondition = meta.resourceVersion ? this.#parseVersion(meta.resourceVersion, name) : undefined;
    return this.update(ctx, namespace, name, { build: () => cloneJson(body), precondition, wholeObject: true });
  }

  /**
   * The one update path (PUT, PATCH, subresources, controllers): builds the desired object from the
   * stored one and writes it, retrying from a fresh read when a concurrent write wins, unless the
   * write is conditional (`precondition`: 409 then). A missing object is created where the kind
   * allows create-on-update and the write is a whole object (the result says so, for the 201).
   */
  async update(ctx: RequestContext, namespace: string, name: string, info: UpdatedObjectInfo): Promise<{ stored: StoredObject; created: boolean }> {
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < GUARANTEED_UPDATE_RETRIES; attempt++) {
      const current = await this.storage.get(key).catch((err) => Promise.reject(this.#toApiError(err, name)));
      if (!current) {
        const mayCreate = info.apply || (info.wholeObject && this.kind.allowCreateOnUpdate);
        if (!mayCreate || ctx.subresource || info.precondition !== undefined) throw notFound(this.qualified, name);
        const body = await info.build(null);
        try {
          return { stored: await this.create(ctx, namespace, body, { fieldsRecorded: info.apply === true }), created: true };
        } catch (err) {
          if (err instanceof ApiError && err.reason === 'AlreadyExists') continue;
          throw err;
        }
      }
      if (info.precondition !== undefined && info.precondition !== current.resourceVersion) throw conflict(this.qualified, name);
      let desired = await info.build(cloneJson(current.object));
      this.#checkUpdateBody(namespace, name, desired, current.object, info);
      if (!info.apply) {
        // As upstream: the new object is defaulted as the decoder would, then the changes are the writer's.
        this.kind.strategy.default?.(ctx, desired);
        desired = await this.fields.recordUpdateConverting(ctx, current.object, desired);
      }
      const next = await this.#prepareUpdate(ctx, namespace, desired, current.object);
      if (this.#unchanged(next, current.object)) {
        // A no-op update writes nothing and keeps the version, so watchers see no event.
        return { stored: current, created: false };
      }
      if (ctx.dryRun) return { stored: { object: next, text: JSON.stringify(next), resourceVersion: 0 }, created: false };
      try {
        if (next.metadata.deletionTimestamp && this.#pendingFinalizers(next).length === 0 && !next.metadata.deletionGracePeriodSeconds) {
          // The last finalizer went: the object leaves storage instead of being updated. The client
          // still gets the object it asked for (finalizers gone), as upstream answers such an update.
          const deleted = await this.storage.delete(key, current.resourceVersion);
          return { stored: { object: next, text: JSON.stringify(next), resourceVersion: deleted.resourceVersion }, created: false };
        }
        return { stored: await this.storage.update(key, next, current.resourceVersion), created: false };
      } catch (err) {
        if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound')) {
          if (info.precondition !== undefined && err.code === 'Conflict') throw conflict(this.qualified, name);
          continue;
        }
        throw this.#toApiError(err, name);
      }
    }
    throw conflict(this.qualified, name, 'too many concurrent changes; please retry');
  }

  /**
   * Deletes one object: at once, or by marking it (deletionTimestamp) while finalizers hold it or its
   * kind's delete strategy gives it a grace period; a second delete may only shorten that period.
   */
  async delete(ctx: RequestContext, namespace: string, name: string, options: DeleteOptions): Promise<DeleteOutcome> {
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < GUARANTEED_UPDATE_RETRIES; attempt++) {
      const current = await this.storage.get(key).catch((err) => Promise.reject(this.#toApiError(err, name)));
      if (!current) throw notFound(this.qualified, name);
      this.#checkDeletePreconditions(current, options, name);
      const obj = current.object;
      const grace = this.#gracefulDelete(ctx, obj, options);
      if (grace.pending) return { gone: false, object: current };
      await this.#admitDelete(ctx, namespace, name, obj, options);
      const firstDeleteMark = this.kind.deleteStrategy.markOnFirstDelete;
      if (firstDeleteMark && !obj.metadata.deletionTimestamp) {
        // The kind's own first delete (see DeleteStrategy.markOnFirstDelete): marked, never removed here.
        const next = cloneJson(obj);
        next.metadata.deletionTimestamp = nowTimestamp();
        firstDeleteMark(ctx, next);
        if (ctx.dryRun) return { gone: false, object: { object: next, text: JSON.stringify(next), resourceVersion: current.resourceVersion } };
        try {
          return { gone: false, object: await this.storage.update(key, next, current.resourceVersion) };
        } catch (err) {
          if (err instanceof StorageError && err.code === 'Conflict') continue;
          throw this.#toApiError(err, name);
        }
      }

      // The garbage collector's finalizers follow the propagation policy (src/registry/gc-finalizers.ts).
      const gcFinalizers = garbageCollectionFinalizers(this.kind, obj, options);
      const finalizers = this.#pendingFinalizers(gcFinalizers ? withFinalizers(obj, gcFinalizers) : obj);
      if (finalizers.length > 0 || grace.marked) {
        // Marked: the object stays until the last finalizer is gone or its grace period is over.
        if (obj.metadata.deletionTimestamp && !grace.marked && !gcFinalizers) return { gone: false, object: current };
        let next = grace.marked ?? cloneJson(obj);
        if (gcFinalizers) next = withFinalizers(next, gcFinalizers);
        if (!next.metadata.deletionTimestamp) {
          next.metadata.deletionTimestamp = nowTimestamp();
          next.metadata.deletionGracePeriodSeconds = 0;
          // As upstream's markAsDeleting: marking a generation-tracking object for deletion is a change of it.
          if ((next.metadata.generation ?? 0) > 0) next.metadata.generation = (next.metadata.generation ?? 0) + 1;
        }
        this.kind.deleteStrategy.prepareForDelete?.(ctx, next);
        if (ctx.dryRun) return { gone: false, object: { object: next, text: JSON.stringify(next), resourceVersion: current.resourceVersion } };
        if (finalizers.length > 0 || (next.metadata.deletionGracePeriodSeconds ?? 0) > 0) {
          try {
            return { gone: false, object: await this.storage.update(key, next, current.resourceVersion) };
          } catch (err) {
            if (err instanceof StorageError && err.code === 'Conflict') continue;
            throw this.#toApiError(err, name);
          }
        }
        // A grace period shortened to 0 with nothing else holding the object: it goes now.
      }
      if (ctx.dryRun) return this.#gone(current);
      try {
        return this.#gone(await this.storage.delete(key, current.resourceVersion));
      } catch (err) {
        if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound') && attempt + 1 < GUARANTEED_UPDATE_RETRIES) {
          continue;
        }
        throw this.#toApiError(err, name);
      }
    }
    throw conflict(this.qualified, name, 'too many concurrent changes; please retry');
  }

  /** Errors of storage (and anything else) as API errors, for callers that reach storage themselves. */
  translate(err: unknown, name: string): unknown {
    return this.#toApiError(err, name);
  }

  #gone(deleted: StoredObject): DeleteOutcome {
    if (this.kind.returnDeletedObject) return { gone: true, object: deleted };
    const obj = deleted.object;
    const status = successStatus({ name: obj.metadata.name, group: this.kind.group || undefined, kind: this.kind.plural, uid: obj.metadata.uid });
    return { gone: true, object: deleted, status };
  }

  /**
   * Upstream's graceful-deletion rules: a kind with a delete strategy may give the object a grace
   * period (it stays, marked, with deletionTimestamp in the future); a later delete can only shorten
   * it, and one that would not is a no-op (`pending`). A negative period counts as 1 s.
   */
  #gracefulDelete(ctx: RequestContext, obj: StoredKubeObject, options: DeleteOptions): { pending: boolean; marked?: StoredKubeObject } {
    const decide = this.kind.deleteStrategy.gracePeriodSeconds;
    if (!decide) return { pending: false };
    const requested = options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < 0 ? 1 : options.gracePeriodSeconds;
    const meta = obj.metadata;
    if (meta.deletionTimestamp) {
      const period = meta.deletionGracePeriodSeconds ?? 0;
      if (period === 0) return { pending: false };
      if (requested === undefined || requested >= period) return { pending: true };
      const next = cloneJson(obj);
      const start = Date.parse(meta.deletionTimestamp) - period * 1000;
      next.metadata.deletionTimestamp = nowTimestamp(new Date(start + requested * 1000));
      next.metadata.deletionGracePeriodSeconds = requested;
      return { pending: false, marked: next };
    }
    const period = decide(ctx, obj, requested);
    if (!period || period <= 0) return { pending: false };
    const next = cloneJson(obj);
    next.metadata.deletionTimestamp = nowTimestamp(new Date(Date.now() + period * 1000));
    next.metadata.deletionGracePeriodSeconds = period;
    if ((next.metadata.generation ?? 0) > 0) next.metadata.generation = (next.metadata.generation ?? 0) + 1;
    return { pending: false, marked: next };
  }

  async #admitDelete(ctx: RequestContext, namespace: string, name: string, obj: StoredKubeObject, options: DeleteOptions): Promise<void> {
    if (!this.#admission.mutates && !this.#admission.validates) return;
    const attributes = this.#attributes(ctx, 'DELETE', namespace, name, undefined, obj, deleteOptionsObject(options));
    await this.#admission.admit(attributes);
    await this.#admission.validate(attributes);
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

  /**
   * The desired object names this endpoint's kind, this object and this namespace (a whole body was
   * checked by `replace` already); a whole body's resourceVersion and uid are preconditions.
   */
  #checkUpdateBody(namespace: string, name: string, desired: KubeObject, old: StoredKubeObject, info: UpdatedObjectInfo): void {
    const meta = (desired.metadata ??= {});
    if (!info.wholeObject) {
      checkTypeMeta(this.kind, desired);
      checkName(meta, name);
      checkNamespace(this.kind, meta, namespace);
      return;
    }
    if (info.precondition === undefined && !this.kind.allowUnconditionalUpdate) {
      throw invalid(this.kind.group, this.kind.kind, name, [
        { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', rawValue: '0x0', detail: 'must be specified for an update' },
      ]);
    }
    const incomingUid = meta.uid;
    if (incomingUid && incomingUid !== old.metadata.uid) {
      throw conflict(this.qualified, name, `Precondition failed: UID in precondition: ${String(incomingUid)}, UID in object meta: ${old.metadata.uid}`);
    }
  }

  async #prepareUpdate(ctx: RequestContext, namespace: string, desired: KubeObject, old: StoredKubeObject): Promise<StoredKubeObject> {
    desired.apiVersion = apiVersionOf(this.kind);
    desired.kind = this.kind.kind;
    if (this.#admission.mutates) await this.#admit(ctx, 'UPDATE', namespace, old.metadata.name, desired, old);
    await this.kind.strategy.authorizeWrite?.(ctx, namespace, desired, old);
    const strategy = this.kind.strategy;
    const sub = this.#subresourceStrategy(ctx, old);
    let next = carryUpdateFields(desired, old);
    strategy.default?.(ctx, next);
    if (sub) {
      next = carryUpdateFields(sub.prepareForUpdate(ctx, next, cloneJson(old)), old);
    } else {
      if (subresourceOf(this.kind, 'status')) {
        if (old.status === undefined) delete next.status;
        else next.status = cloneJson(old.status);
      }
      strategy.prepareForUpdate?.(ctx, next, old);
    }
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    strategy.canonicalize?.(ctx, next);
    if (this.kind.tracksGeneration && specOf(next) !== specOf(old)) {
      next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
    const errors = [...validateObjectMeta(this.kind, next), ...validateObjectMetaUpdate(next, old), ...validateManagedFields(next.metadata.managedFields, 'metadata.managedFields')];
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
    const kindErrors = sub ? (sub.validateUpdate?.(ctx, next, old) ?? []) : (strategy.validateUpdate?.(ctx, next, old) ?? []);
    this.#validate(next, errors, kindErrors);
    ctx.warnings.push(...((sub ? sub.warningsOnUpdate : strategy.warningsOnUpdate)?.(ctx, next, old) ?? []));
    if (this.#admission.validates) await this.#admission.validate(this.#attributes(ctx, 'UPDATE', namespace, old.metadata.name, next, old));
    return next;
  }

  /** Mutating admission; managedFields it leaves undecodable are put back as they were (upstream's guard), with a warning. */
  async #admit(ctx: RequestContext, operation: AdmissionOperation, namespace: string, name: string, object: KubeObject, old?: KubeObject): Promise<void> {
    const before = object.metadata?.managedFields;
    await this.#admission.admit(this.#attributes(ctx, operation, namespace, name, object, old));
    // Decoding them again costs as much as recording them: only when a plugin replaced them. (A
    // plugin that edits the entries in place must replace the list, so that this sees the change.)
    if (object.metadata?.managedFields === before) return;
    const warning = restoreManagedFieldsAfterAdmission(object as Record<string, unknown>, before);
    if (warning) ctx.warnings.push(warning);
  }

  /**
   * Whether an update changes nothing. Entries of managedFields whose times alone moved count as
   * unchanged (they are put back), as upstream's IgnoreManagedFieldsTimestampsTransformer rules.
   */
  #unchanged(next: StoredKubeObject, old: StoredKubeObject): boolean {
    const stored = canonicalJson(old);
    if (canonicalJson(next) === stored) return true;
    const kept = storedEntriesIfOnlyTimesMoved(next.metadata.managedFields, old.metadata.managedFields);
    if (!kept) return false;
    const moved = next.metadata.managedFields;
    next.metadata.managedFields = kept;
    if (canonicalJson(next) === stored) return true;
    next.metadata.managedFields = moved;
    return false;
  }

  /** The strategy of the subresource the request addresses (undefined for the main resource). */
  #subresourceStrategy(ctx: RequestContext, old: StoredKubeObject): SubresourceStrategy | undefined {
    if (!ctx.subresource) return undefined;
    const strategy = subresourceOf(this.kind, ctx.subresource)?.strategy;
    if (!strategy) throw notFound(this.qualified, `${old.metadata.name}/${ctx.subresource}`);
    return strategy;
  }

  #attributes(
    ctx: RequestContext,
    operation: AdmissionOperation,
    namespace: string,
    name: string,
    object?: KubeObject,
    oldObject?: KubeObject,
    options?: Record<string, unknown>,
  ): AdmissionAttributes {
    return {
      operation,
      kind: { group: this.kind.group, version: this.kind.version, kind: this.kind.kind },
      resource: { group: this.kind.group, version: this.kind.version, resource: this.kind.plural },
      subresource: ctx.subresource,
      name,
      namespace: this.kind.namespaced ? namespace : '',
      object,
      oldObject,
      user: ctx.user,
      dryRun: ctx.dryRun,
      options: options ?? { kind: operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', ...(ctx.dryRun ? { dryRun: ['All'] } : {}), ...(ctx.fieldManager ? { fieldManager: ctx.fieldManager } : {}) },
      context: ctx,
    };
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

/** A copy of `obj` with these finalizers (none: the field goes, as an empty list is not stored). */
function withFinalizers(obj: StoredKubeObject, finalizers: string[]): StoredKubeObject {
  const { finalizers: _old, ...meta } = obj.metadata;
  return { ...obj, metadata: finalizers.length > 0 ? { ...meta, finalizers } : meta };
}

/** DeleteOptions as a meta.k8s.io/v1 object, for admission. */
function deleteOptionsObject(options: DeleteOptions): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };
  if (options.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.preconditions) out.preconditions = options.preconditions;
  if (options.orphanDependents !== undefined) out.orphanDependents = options.orphanDependents;
  if (options.propagationPolicy) out.propagationPolicy = options.propagationPolicy;
  if (options.dryRun) out.dryRun = ['All'];
  return out;
}
