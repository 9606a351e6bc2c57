import { randomInt, randomUUID } from 'node:crypto';
import type { KubeObject, ObjectMeta, StoredKubeObject } from '../api/types.ts';

/** The last second formatted, and its text: every write stamps times, and most fall in the same second. */
let formattedSecond = Number.NaN;
let formattedText = '';

/** RFC 3339 with second precision, as metav1.Time serialises (`date` or now). */
export function nowTimestamp(date?: Date): string {
  const ms = date ? date.getTime() : Date.now();
  const second = Math.floor(ms / 1000);
  if (second !== formattedSecond) {
    // toISOString always ends in `.sssZ`; it throws for an invalid date, as it did here before.
    const iso = (date ?? new Date(ms)).toISOString();
    formattedText = `${iso.slice(0, -5)}Z`;
    formattedSecond = second;
  }
  return formattedText;
}

// The alphabet and length the real server uses for generateName suffixes (no vowels, no confusables).
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const SUFFIX_LENGTH = 5;
const MAX_GENERATED_NAME_LENGTH = 63;

export function generateName(base: string): string {
  const prefix = base.length > MAX_GENERATED_NAME_LENGTH - SUFFIX_LENGTH ? base.slice(0, MAX_GENERATED_NAME_LENGTH - SUFFIX_LENGTH) : base;
  let suffix = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return prefix + suffix;
}

/** Sets the fields only the server may set on a new object and clears what a client may not send. */
export function fillCreateFields(obj: KubeObject, tracksGeneration: boolean): StoredKubeObject {
  const meta = (obj.metadata ??= {}) as ObjectMeta;
  meta.uid = randomUUID();
  meta.creationTimestamp = nowTimestamp();
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  return obj as StoredKubeObject;
}

/** Carries the server-owned metadata of the stored object into an update. */
export function carryUpdateFields(obj: KubeObject, old: StoredKubeObject): StoredKubeObject {
  const meta = (obj.metadata ??= {}) as ObjectMeta;
  const oldMeta = old.metadata;
  meta.uid = oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp !== undefined) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
  else delete meta.generation;
  delete meta.selfLink;
  return obj as StoredKubeObject;
}

/** Everything but metadata and status: a change here bumps metadata.generation. */
export function specOf(obj: KubeObject): string {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return canonicalJson(rest);
}

/** JSON with object keys sorted, for equality checks that ignore key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
}
