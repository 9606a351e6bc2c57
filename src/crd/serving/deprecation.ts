/**
 * The warning every request to a deprecated custom resource version gets: the version's
 * `deprecationWarning`, or upstream's default (`<group>/<version> <Kind> is deprecated`, then
 * `; use <group>/<version> <Kind>` naming the highest-priority served, not deprecated version above it).
 */
import { compareKubeAwareVersions } from '../../http/discovery/version-priority.ts';
import type { CrdVersion, CustomResourceDefinition } from '../validation/types.ts';

export function versionDeprecationWarning(crd: CustomResourceDefinition, version: CrdVersion, kind: string): string | undefined {
  if (!version.deprecated) return undefined;
  if (version.deprecationWarning !== undefined && version.deprecationWarning !== null) return version.deprecationWarning;
  const group = crd.spec?.group ?? '';
  const name = version.name ?? '';
  const text = `${group}/${name} ${kind} is deprecated`;
  const newer = (crd.spec?.versions ?? [])
    .filter((v) => v.served && !v.deprecated && v.name && compareKubeAwareVersions(name, v.name) < 0)
    .map((v) => v.name!)
    .sort((a, b) => compareKubeAwareVersions(b, a));
  return newer.length === 0 ? text : `${text}; use ${group}/${newer[0]} ${kind}`;
}
