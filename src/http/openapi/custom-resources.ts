/**
 * The OpenAPI routes and definitions of custom resource kinds, as apiextensions-apiserver publishes
 * them (pkg/controller/openapi/builder): every verb of the collection and the item (custom resources
 * serve them all), the all-namespaces list of namespaced kinds, and the status and scale
 * subresources the CRD version declares. The operations differ from built-in kinds' where upstream's
 * do: JSON and YAML only (no protobuf, no watch stream types), JSON patch, merge patch and apply
 * (no strategic merge patch), the parameters of the options type of each verb (get: GetOptions;
 * list and deletecollection: ListOptions; delete: DeleteOptions with an optional body), and the
 * codes upstream's routes declare (a PATCH answers 200 only).
 */
import { customResourceDefinitionName, customResourceSchemas, type JsonSchema } from '../../crd/openapi/index.ts';
import type { CrdVersion, CustomResourceDefinition } from '../../crd/validation/types.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import { gvCamel, gvPrefix, gvTag, type GroupVersionKind } from './names.ts';
import { DELETE_QUERY, LIST_QUERY, PATCH_QUERY, WRITE_QUERY, type Operation, type PathSpec } from './routes.ts';
import { DELETE_OPTIONS, META, PATCH, STATUS } from './schemas.ts';

const CR_MEDIA_TYPES = ['application/json', 'application/yaml'];
const CR_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const SCALE = 'k8s.io.api.autoscaling.v1.Scale';
const OBJECT_META = `${META}.ObjectMeta`;
const LIST_META = `${META}.ListMeta`;

/** True for kinds served for a CustomResourceDefinition. */
export function isCustomResource(kind: KindDefinition): boolean {
  return kind.customResource !== undefined;
}

function crdOf(kind: KindDefinition): { crd: CustomResourceDefinition; version: CrdVersion } {
  const crd = kind.customResource!.crd as CustomResourceDefinition;
  const name = kind.customResource!.version;
  return { crd, version: crd.spec?.versions?.find((v) => v.name === name) ?? { name } };
}

/** `create a CronTab`, `create an Apple`: the article upstream's endpoints pick for a noun. */
function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? ' an ' : ' a ';
}

/** The paths of a custom resource kind, in the shape the v2 and v3 renderers read. */
export function customResourcePaths(kind: KindDefinition): PathSpec[] {
  const { crd, version } = crdOf(kind);
  const group = crd.spec?.group ?? kind.group;
  const names = crd.spec?.names ?? {};
  const Kind = names.kind ?? kind.kind;
  const plural = names.plural ?? kind.plural;
  const namespaced = crd.spec?.scope !== 'Cluster';
  const v = version.name ?? kind.version;
  const message = customResourceDefinitionName(group, v, Kind);
  const list = customResourceDefinitionName(group, v, names.listKind || `${Kind}List`);
  const prefix = gvPrefix(group, v);
  const collection = `${namespaced ? `${prefix}/namespaces/{namespace}` : prefix}/${plural}`;
  const item = `${collection}/{name}`;
  const ns = namespaced ? 'Namespaced' : '';
  const gv = gvCamel(group, v);
  const tag = gvTag(group, v);
  const gvk = { group, version: v, kind: Kind };
  const nsParams = namespaced ? ['namespace'] : [];
  const op = (o: Omit<Operation, 'tag' | 'gvk' | 'produces' | 'consumes'>): Operation =>
    ({ ...o, tag, gvk, produces: CR_MEDIA_TYPES, consumes: o.patch ? CR_PATCH_TYPES : CR_MEDIA_TYPES });
  const listOp = (operationId: string): Operation => op({ method: 'get', action: 'list', operationId,
    description: `list objects of kind ${Kind}`, query: LIST_QUERY, response: list, codes: ['200'] });

  const paths: PathSpec[] = [];
  if (namespaced) paths.push({ path: `${prefix}/${plural}`, params: ['pretty'], operations: [listOp(`list${gv}${Kind}ForAllNamespaces`)] });
  paths.push({ path: collection, params: [...nsParams, 'pretty'], operations: [
    listOp(`list${gv}${ns}${Kind}`),
    op({ method: 'post', action: 'post', operationId: `create${gv}${ns}${Kind}`, description: `create${article(Kind)}${Kind}`,
      query: WRITE_QUERY, body: message, response: message, codes: ['200', '201', '202'] }),
    op({ method: 'delete', action: 'deletecollection', operationId: `delete${gv}Collection${ns}${Kind}`,
      description: `delete collection of ${Kind}`, query: LIST_QUERY, response: STATUS, codes: ['200'] }),
  ] });
  paths.push({ path: item, params: ['name', ...nsParams, 'pretty'], operations: [
    op({ method: 'get', action: 'get', operationId: `read${gv}${ns}${Kind}`, description: `read the specified ${Kind}`,
      query: ['resourceVersion'], response: message, codes: ['200'] }),
    op({ method: 'put', action: 'put', operationId: `replace${gv}${ns}${Kind}`, description: `replace the specified ${Kind}`,
      query: WRITE_QUERY, body: message, response: message, codes: ['200', '201'] }),
    op({ method: 'delete', action: 'delete', operationId: `delete${gv}${ns}${Kind}`, description: `delete${article(Kind)}${Kind}`,
      query: DELETE_QUERY, body: DELETE_OPTIONS, bodyOptional: true, response: STATUS, codes: ['200', '202'] }),
    op({ method: 'patch', action: 'patch', operationId: `patch${gv}${ns}${Kind}`,
      description: `partially update the specified ${Kind}`, query: PATCH_QUERY, body: PATCH, patch: true, response: message,
      codes: ['200'] }),
  ] });
  const subresources: [string, string][] = [];
  if (version.subresources?.status) subresources.push(['status', message]);
  if (version.subresources?.scale) subresources.push(['scale', SCALE]);
  for (const [sub, body] of subresources) {
    const Sub = sub.charAt(0).toUpperCase() + sub.slice(1);
    paths.push({ path: `${item}/${sub}`, params: ['name', ...nsParams, 'pretty'], operations: [
      op({ method: 'get', action: 'get', operationId: `read${gv}${ns}${Kind}${Sub}`,
        description: `read ${sub} of the specified ${Kind}`, query: ['resourceVersion'], response: body, codes: ['200'] }),
      op({ method: 'put', action: 'put', operationId: `replace${gv}${ns}${Kind}${Sub}`,
        description: `replace ${sub} of the specified ${Kind}`, query: WRITE_QUERY, body, response: body, codes: ['200', '201'] }),
      op({ method: 'patch', action: 'patch', operationId: `patch${gv}${ns}${Kind}${Sub}`,
        description: `partially update ${sub} of the specified ${Kind}`, query: PATCH_QUERY, body: PATCH, patch: true,
        response: body, codes: ['200'] }),
    ] });
  }
  return paths;
}

/** The built-in messages a custom resource kind's routes and schemas refer to. */
export function customResourceReferences(kind: KindDefinition): string[] {
  const { version } = crdOf(kind);
  return [OBJECT_META, LIST_META, STATUS, DELETE_OPTIONS, PATCH, ...(version.subresources?.scale ? [SCALE] : [])];
}

/**
 * The group-version-kinds of definitions, with autoscaling/v1 Scale's (the response of custom
 * resources' scale subresource, a kind in client-go's scheme that no built-in kind here names).
 */
export function withScaleKind(gvks: Map<string, GroupVersionKind[]>): Map<string, GroupVersionKind[]> {
  if (!gvks.has(SCALE)) gvks.set(SCALE, [{ group: 'autoscaling', version: 'v1', kind: 'Scale' }]);
  return gvks;
}

/** The kind and list definitions of custom resource kinds, by definition name. */
export function customResourceDefinitions(kinds: readonly KindDefinition[], v2: boolean): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const kind of kinds) {
    const { crd, version } = crdOf(kind);
    Object.assign(out, customResourceSchemas(crd, version.name ?? kind.version, { v2 }).definitions);
  }
  return out;
}
