/**
 * Custom resource version conversion (upstream's crConverter): both ends must be versions the CRD
 * defines, then strategy None rewrites apiVersion and nothing else, and strategy Webhook asks the
 * CRD's conversion webhook. The caller's objects are never modified, unless it says it owns them.
 */
import { WebhookClients } from '../../admission/webhook/client.ts';
import { cloneJson } from '../../codecs/deep-json.ts';
import type { CustomResourceDefinition } from '../validation/types.ts';
import { apiVersionOf, type UnstructuredObject } from './types.ts';
import { webhookConvert } from './webhook.ts';

export interface ConversionOptions {
  /** The HTTPS clients for webhook calls (shared, with the server's Service resolver); a private one when absent. */
  readonly clients?: WebhookClients;
  /** Overrides upstream's 30 s webhook timeout (tests). */
  readonly timeoutSeconds?: number;
  /**
   * The objects were made for this call (parsed from storage) and nobody else holds them: strategy
   * None then sets apiVersion on them in place instead of on a deep copy.
   */
  readonly owned?: boolean;
}

/** Thrown with upstream's text for every conversion failure. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

function validGroupVersions(crd: CustomResourceDefinition): Set<string> {
  const group = crd.spec?.group ?? '';
  return new Set((crd.spec?.versions ?? []).map((v) => `${group}/${v.name ?? ''}`));
}


async function convert(crd: CustomResourceDefinition, isList: boolean, objects: readonly UnstructuredObject[], toVersion: string, options: ConversionOptions, fromApiVersion: string): Promise<UnstructuredObject[]> {
  const desired = `${crd.spec?.group ?? ''}/${toVersion}`;
  const valid = validGroupVersions(crd);
  if (!valid.has(desired)) throw new ConversionError(`request to convert CR to an invalid group/version: ${desired}`);
  if (!valid.has(fromApiVersion)) throw new ConversionError(`request to convert CR from an invalid group/version: ${fromApiVersion}`);
  if (isList) {
    objects.forEach((o, i) => {
      if (!valid.has(apiVersionOf(o))) throw new ConversionError(`request to convert CR list failed, list index ${i} has invalid group/version: ${apiVersionOf(o)}`);
    });
  }
  const strategy = crd.spec?.conversion?.strategy ?? 'None';
  if (strategy === 'None') {
    if (options.owned) return objects.map((o) => Object.assign(o, { apiVersion: desired }));
    return objects.map((o) => ({ ...cloneJson(o), apiVersion: desired }));
  }
  if (strategy !== 'Webhook') throw new ConversionError(`unknown conversion strategy "${strategy}" for CRD ${crd.metadata?.name ?? ''}`);
  const clients = options.clients ?? new WebhookClients();
  try {
    const input = isList ? { list: { apiVersion: desired, kind: crd.spec?.names?.listKind ?? `${crd.spec?.names?.kind ?? ''}List` }, items: objects } : { object: objects[0]! };
    return await webhookConvert(crd, input, desired, { clients, timeoutSeconds: options.timeoutSeconds });
  } catch (err) {
    throw new ConversionError((err as Error).message);
  } finally {
    if (!options.clients) clients.close();
  }
}

/** One object converted to `toVersion` (a version name of the CRD, e.g. `v2`). */
export async function convertObject(crd: CustomResourceDefinition, object: UnstructuredObject, toVersion: string, options: ConversionOptions = {}): Promise<UnstructuredObject> {
  const [out] = await convert(crd, false, [object], toVersion, options, apiVersionOf(object));
  return out!;
}

/**
 * A list's items converted to `toVersion`, in one webhook call for those not already there. The list
 * is taken to be at the desired version with the CRD's listKind, as the CRD storage builds it.
 */
export async function convertObjects(crd: CustomResourceDefinition, objects: readonly UnstructuredObject[], toVersion: string, options: ConversionOptions = {}): Promise<UnstructuredObject[]> {
  return convert(crd, true, objects, toVersion, options, `${crd.spec?.group ?? ''}/${toVersion}`);
}
