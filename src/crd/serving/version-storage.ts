/**
 * Where a custom resource lives and in which version: every object of a CRD is stored under
 * (group, plural) in the CRD's storage version, whatever version a client writes or reads, as
 * apiextensions-apiserver's storage codec encodes to the storage version and decodes to the
 * requested one. Conversion goes through src/crd/conversion (None rewrites apiVersion, Webhook asks
 * the CRD's webhook); the storage view (src/registry/storage-view.ts) calls it on every way in and
 * out, a list page or a watch change at a time.
 */
import { ApiError } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import type { WebhookClients } from '../../admission/webhook/client.ts';
import type { AsyncStorageMapping } from '../../registry/storage-view.ts';
import { convertObject, convertObjects, type UnstructuredObject } from '../conversion/index.ts';
import type { CustomResourceDefinition } from '../validation/types.ts';

/** The name of the CRD's version marked `storage: true` (validation makes it exactly one). */
export function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  return crd.spec?.versions?.find((v) => v.storage)?.name;
}

/**
 * A conversion that failed, as upstream answers it: the converter's error goes through
 * ErrorToAPIStatus untouched, so 500 with the text as the message and no reason.
 */
export function conversionFailure(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = new ApiError(500, '', (err as Error).message);
  delete (e.status as { reason?: string }).reason;
  return e;
}

export interface VersionStorageOptions {
  /** HTTPS clients for conversion webhooks (shared by every CRD of the server). */
  readonly clients: WebhookClients;
}

/**
 * The storage mapping of one served version of a CRD: objects go to storage in the storage version
 * and come back in `version`. The synchronous functions (for callers that cannot wait, admission's
 * equivalent-resource matching) can only do strategy None and throw for a webhook.
 */
export function versionStorage(crd: CustomResourceDefinition, version: string, options: VersionStorageOptions): AsyncStorageMapping {
  const group = crd.spec?.group ?? '';
  const plural = crd.spec?.names?.plural ?? '';
  const storageVersion = storageVersionOf(crd) ?? version;
  const convertOptions = { clients: options.clients };
  const webhook = crd.spec?.conversion?.strategy === 'Webhook';
  const rewrite = (to: string) => (obj: KubeObject): KubeObject => {
    if (webhook) throw new Error(`converting ${group}/${plural} to ${to} needs the conversion webhook`);
    return { ...structuredClone(obj), apiVersion: `${group}/${to}` };
  };
  return {
    group,
    resource: plural,
    // Strategy None only sets apiVersion; a webhook's answers are its own.
    deterministic: !webhook,
    toStorage: rewrite(storageVersion),
    fromStorage: rewrite(version),
    async toStorageAsync(obj) {
      try {
        return (await convertObject(crd, obj as UnstructuredObject, storageVersion, convertOptions)) as KubeObject;
      } catch (err) {
        throw conversionFailure(err);
      }
    },
    async fromStorageAsync(objs, owned = false) {
      const options = { ...convertOptions, owned };
      const one = async (o: KubeObject) => {
        try {
          return (await convertObject(crd, o as UnstructuredObject, version, options)) as KubeObject;
        } catch (err) {
          throw conversionFailure(err);
        }
      };
      if (objs.length === 1) return [await one(objs[0]!)];
      try {
        return (await convertObjects(crd, objs as UnstructuredObject[], version, options)) as KubeObject[];
      } catch {
        // Upstream decodes (and so converts) each stored object on its own, and its error names that
        // object: a batch that fails is done again one object at a time, for that error.
        const out: KubeObject[] = [];
        for (const o of objs) out.push(await one(o));
        return out;
      }
    },
  };
}
