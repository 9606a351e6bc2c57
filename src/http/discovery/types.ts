/** Wire shapes of the discovery documents, field order as the real server writes them. */

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

/** `GET /api`. The real document has no apiVersion. */
export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

/** `GET /apis`. */
export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** `GET /api/v1`, `GET /apis/<group>/<version>`. The core group's list has no apiVersion. */
export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Cluster' | 'Namespaced';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources: APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: `apidiscovery.k8s.io/${AggregatedDiscoveryVersion}`;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}
