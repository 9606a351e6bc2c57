import { cloneJson as cloneDeep } from '../codecs/deep-json.ts';

/**
 * Wire types shared by every layer. Objects are plain JSON values; only the
 * fields the generic machinery reads are typed here.
 */

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** An object whose metadata the server has filled in. */
export interface StoredKubeObject extends KubeObject {
  metadata: ObjectMeta & { name: string; uid: string; resourceVersion: string };
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | ListMeta;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** The Success status a delete answers once the object is gone: upstream sends it without `code`. */
export type SuccessStatus = Omit<Status, 'code'> & { code?: number };

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Creates a deep copy of a JSON value (objects here are always plain JSON). */
export function cloneJson<T>(value: T): T {
  // Without recursion: structuredClone gives up at about 2,000 levels.
  return cloneDeep(value);
}
