/**
 * The audit annotations a mutating webhook call leaves (upstream's webhookAnnotator):
 * `mutation.webhook.admission.k8s.io/round_R_index_I`, whether it changed the object (Metadata
 * level), and `patch.webhook.admission.k8s.io/round_R_index_I`, the JSONPatch it returned (Request
 * level: it shows request content).
 *
 * Upstream writes the patch as it decoded it: a list of operations, each a map of member name to the
 * member's raw JSON. So Go's json.Marshal writes each operation's members sorted by name (the last
 * of duplicate names kept, unknown members too) and each member's value as the webhook spelled it,
 * only compacted (whitespace gone, `<`, `>`, `&`, U+2028 and U+2029 escaped): numbers keep their
 * spelling and objects their key order. That is why the value is built from the patch's bytes.
 */
import { compareGoStrings } from '../../api/go/strings.ts';
import { goJsonString } from '../../registry/managed-fields/go-json.ts';

export const MUTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
export const PATCH_PREFIX = 'patch.webhook.admission.k8s.io/';
export const FAILED_OPEN_PREFIX = 'failed-open.mutation.webhook.admission.k8s.io/';

/** The mutation annotation's value (MutationAuditAnnotation). */
export function mutationAnnotationValue(configuration: string, webhook: string, mutated: boolean): string {
  return `{"configuration":${goJsonString(configuration)},"webhook":${goJsonString(webhook)},"mutated":${mutated}}`;
}

/**
 * The patch annotation's value (PatchAuditAnnotation with patchType JSONPatch), from the bytes of a
 * patch already decoded as a JSON array of operation objects.
 */
export function jsonPatchAnnotationValue(configuration: string, webhook: string, patch: Buffer): string {
  const operations = rawOperations(patch.toString('utf8')).map((members) => {
    const names = [...members.keys()].sort(compareGoStrings);
    return `{${names.map((name) => `${goJsonString(name)}:${compactJson(members.get(name)!)}`).join(',')}}`;
  });
  return `{"configuration":${goJsonString(configuration)},"webhook":${goJsonString(webhook)},"patch":[${operations.join(',')}],"patchType":"JSONPatch"}`;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * The operations of a valid JSON array of objects, each as member name → the member's raw text.
 * Only reads text JSON.parse accepted, so it checks nothing.
 */
function rawOperations(text: string): Map<string, string>[] {
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  };
  /** Moves past the string starting at i (its opening quote). */
  const skipString = () => {
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
  };
  /** Moves past the value starting at i. */
  const skipValue = () => {
    const c = text[i];
    if (c === '"') return skipString();
    if (c !== '{' && c !== '[') {
      while (i < text.length && !isSpace(text.charCodeAt(i)) && text[i] !== ',' && text[i] !== '}' && text[i] !== ']') i++;
      return;
    }
    let depth = 0;
    do {
      const d = text[i];
      if (d === '"') {
        skipString();
        continue;
      }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') depth--;
      i++;
    } while (depth > 0);
  };

  const operations: Map<string, string>[] = [];
  skipSpace();
  i++; // [
  for (;;) {
    skipSpace();
    if (text[i] === ']') break;
    if (text[i] === ',') {
      i++;
      skipSpace();
    }
    const members = new Map<string, string>();
    i++; // {
    for (;;) {
      skipSpace();
      if (text[i] === '}') break;
      if (text[i] === ',') {
        i++;
        skipSpace();
      }
      const nameStart = i;
      skipString();
      const name = JSON.parse(text.slice(nameStart, i)) as string;
      skipSpace();
      i++; // :
      skipSpace();
      const valueStart = i;
      skipValue();
      // As decoding into a Go map: a repeated name keeps its last value.
      members.set(name, text.slice(valueStart, i));
    }
    i++; // }
    operations.push(members);
  }
  return operations;
}

const GO_HTML_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** Go's json.Compact with HTML escaping, on valid JSON text. */
export function compactJson(raw: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (inString) {
      if (c === '\\') {
        out += c + raw[++i];
        continue;
      }
      if (c === '"') inString = false;
      out += GO_HTML_ESCAPES[c] ?? c;
      continue;
    }
    if (c === '"') inString = true;
    else if (isSpace(c.charCodeAt(0))) continue;
    out += c;
  }
  return out;
}
