import type { ObjectSchema } from '../../../schema/type-schema.ts';
import type { Updater, VersionConverter } from '../../../ssa/updater.ts';
import { groupVersionString, type GroupVersionKind, type JsonObject } from '../object-meta.ts';
import { BuildManagerInfoManager } from './build-manager-info.ts';
import { CapManagersManager, DEFAULT_MAX_UPDATE_MANAGERS } from './cap-managers.ts';
import { LastAppliedManager } from './last-applied-manager.ts';
import { LastAppliedUpdater } from './last-applied-updater.ts';
import { ManagedFieldsUpdater } from './managed-fields-updater.ts';
import type { Manager } from './manager.ts';
import { SkipNonAppliedManager } from './skip-non-applied.ts';
import { StripMetaManager } from './strip-meta.ts';
import { StructuredMergeManager } from './structured-merge.ts';
import { VersionCheckManager } from './version-check.ts';

export interface ChainOptions {
  readonly schema: ObjectSchema;
  readonly gvk: GroupVersionKind;
  readonly subresource: string;
  readonly updater: Updater;
  readonly emptyObject: () => JsonObject;
  readonly defaulter?: (obj: JsonObject) => void;
  /** Upstream's DefaultMaxUpdateManagers unless a test wants fewer. */
  readonly maxUpdateManagers?: number;
  /** The request's conversions to the other versions of the kind (none: sets are compared at the request's version). */
  readonly converter?: VersionConverter;
}

/**
 * kube-apiserver's chain (upstream's NewDefaultFieldManager), outermost first: version check,
 * last-applied updater, last-applied manager, skip-non-applied, cap managers, build manager
 * info, managed fields updater, strip meta, structured merge. Built per request because the
 * managed fields updater stamps the request's time.
 */
export function defaultChain(options: ChainOptions, now: number): Manager {
  const apiVersion = groupVersionString(options.gvk);
  return new VersionCheckManager(
    new LastAppliedUpdater(
      new LastAppliedManager(
        new SkipNonAppliedManager(
          new CapManagersManager(
            new BuildManagerInfoManager(
              new ManagedFieldsUpdater(new StripMetaManager(new StructuredMergeManager(options.updater, options.gvk, options.defaulter, options.converter)), now),
              apiVersion,
              options.subresource,
            ),
            options.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS,
          ),
          options.emptyObject,
        ),
        options.schema,
        apiVersion,
      ),
    ),
    options.gvk,
  );
}
