import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject } from '../api/types.ts';
import type { UserInfo } from '../auth/user.ts';
import type { GroupVersionKind } from '../registry/kind.ts';

/** The operations admission sees (upstream's admission.Operation). */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** A group, version and resource. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/**
 * What an admission plugin is told about a write, as upstream's admission.Attributes: the operation,
 * what it acts on, the object as it would be stored (`object`; a mutating plugin may change it) and
 * as it is (`oldObject` for updates and deletes), who asks, and the options of the request.
 */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** '' for the main resource. */
  readonly subresource: string;
  readonly name: string;
  /** '' for cluster-scoped kinds. */
  readonly namespace: string;
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly user: UserInfo;
  readonly dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions as sent (what upstream passes to webhooks). */
  readonly options?: Readonly<Record<string, unknown>>;
  /** The request the write belongs to (warnings go to its `warnings`). */
  readonly context: RequestContext;
}
