/**
 * OpenAPI names of custom resource definitions, as kube-openapi's ToRESTFriendlyName makes them from
 * `<group>/<version>/<kind>`: the group's labels reversed, then the version and the kind, joined by
 * dots (`stable.example.com`, `v1`, `CronTab` → `com.example.stable.v1.CronTab`).
 */
export function customResourceDefinitionName(group: string, version: string, kind: string): string {
  const reversed = group.includes('.') ? group.split('.').reverse().join('.') : group;
  return `${reversed}.${version}.${kind}`;
}
