/**
 * The versions of a CRD as server-side apply sees them (upstream's NewDefaultCRDFieldManager with the
 * CR's converter and a type converter built from every version's schema): managedFields entries
 * recorded at one version are compared against the objects converted to it (strategy None rewrites
 * apiVersion; Webhook asks the webhook, desiredAPIVersion that version) and typed by its schema.
 */
import type { WebhookClients } from '../../admission/webhook/client.ts';
import type { KindVersions } from '../../registry/managed-fields/conversions.ts';
import type { ObjectSchema } from '../../schema/type-schema.ts';
import { convertObject, type UnstructuredObject } from '../conversion/index.ts';
import type { CustomResourceDefinition } from '../validation/types.ts';
import { conversionFailure } from './version-storage.ts';
import { customResourceVersionTypeSchema } from './version-schema.ts';

/** A storage mapping that also tells the field manager of the kind's versions (see field-tracking.ts). */
export interface WithKindVersions {
  readonly kindVersions?: KindVersions;
}

export function crdKindVersions(crd: CustomResourceDefinition, clients: WebhookClients): KindVersions {
  const group = crd.spec?.group ?? '';
  const schemas = new Map<string, ObjectSchema | undefined>();
  const versionName = (apiVersion: string): string | undefined => {
    const slash = apiVersion.indexOf('/');
    if (slash < 0 || apiVersion.slice(0, slash) !== group) return undefined;
    const name = apiVersion.slice(slash + 1);
    return crd.spec?.versions?.some((v) => v.name === name) ? name : undefined;
  };
  return {
    schemaOf(apiVersion) {
      if (schemas.has(apiVersion)) return schemas.get(apiVersion);
      const name = versionName(apiVersion);
      const version = name === undefined ? undefined : crd.spec?.versions?.find((v) => v.name === name);
      // Upstream's type converter knows every version of the CRD, served or not.
      const schema = version ? customResourceVersionTypeSchema(version) : undefined;
      schemas.set(apiVersion, schema);
      return schema;
    },
    async convert(obj, apiVersion) {
      const name = versionName(apiVersion);
      if (name === undefined) throw new Error(`request to convert CR to an invalid group/version: ${apiVersion}`);
      try {
        return (await convertObject(crd, obj as UnstructuredObject, name, { clients })) as typeof obj;
      } catch (err) {
        throw conversionFailure(err);
      }
    },
  };
}
