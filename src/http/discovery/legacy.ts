import type { KindDefinition } from '../../registry/kind.ts';
import { compareGroups } from './group-priority.ts';
import { apiResourcesFor } from './resources.ts';
import type { APIGroup, APIGroupList, APIResourceList, APIVersions, GroupVersionForDiscovery } from './types.ts';
import { sortVersionsByPriority } from './version-priority.ts';

/**
 * `GET /api`: the core group's versions and the address clients should use.
 *
 * @param serverAddress `host:port` clients reach this server at.
 */
export function apiVersions(serverAddress: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** Named groups (not the core group) with their versions, highest priority version first. */
export function servedGroups(kinds: readonly KindDefinition[]): Map<string, string[]> {
  const byGroup = new Map<string, Set<string>>();
  for (const k of kinds) {
    if (k.group === '') continue;
    const set = byGroup.get(k.group) ?? new Set<string>();
    set.add(k.version);
    byGroup.set(k.group, set);
  }
  const names = [...byGroup.keys()].sort(compareGroups);
  return new Map(names.map((g) => [g, sortVersionsByPriority(byGroup.get(g)!)]));
}

function groupVersion(group: string, version: string): GroupVersionForDiscovery {
  return { groupVersion: `${group}/${version}`, version };
}

function groupEntry(group: string, versions: readonly string[]): APIGroup {
  return {
    name: group,
    versions: versions.map((v) => groupVersion(group, v)),
    preferredVersion: groupVersion(group, versions[0]!),
  };
}

/** `GET /apis`: every named group, its versions and its preferred version. */
export function apiGroupList(kinds: readonly KindDefinition[]): APIGroupList {
  const groups: APIGroup[] = [];
  for (const [group, versions] of servedGroups(kinds)) groups.push(groupEntry(group, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** `GET /apis/<group>`; undefined when the group is not served. */
export function apiGroup(kinds: readonly KindDefinition[], group: string): APIGroup | undefined {
  const versions = servedGroups(kinds).get(group);
  if (!versions) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group, versions) };
}

/**
 * `GET /api/v1` (group '') or `GET /apis/<group>/<version>`; undefined when that group version
 * serves nothing.
 */
export function apiResourceList(kinds: readonly KindDefinition[], group: string, version: string): APIResourceList | undefined {
  if (!kinds.some((k) => k.group === group && k.version === version)) return undefined;
  const resources = apiResourcesFor(kinds, group, version);
  if (group === '') return { kind: 'APIResourceList', groupVersion: version, resources };
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources };
}
