import type { KindDefinition } from './kind.ts';

/**
 * Applies --runtime-config entries (`<group>/<version>[=true|false]`, `<group>/<version>/<resource>=false`,
 * `api/all=false`, `api/v1=false` for the core group) to the known kinds; a kind not named is
 * served when its `enabledByDefault` says so.
 */
export function enabledKinds(kinds: readonly KindDefinition[], entries: readonly string[]): KindDefinition[] {
  let all: boolean | undefined;
  const groupVersions = new Map<string, boolean>();
  const resources = new Map<string, boolean>();
  for (const entry of entries) {
    const [key, rawValue] = entry.split('=', 2);
    const value = rawValue === undefined || rawValue === '' || rawValue === 'true';
    if (rawValue !== undefined && rawValue !== '' && rawValue !== 'true' && rawValue !== 'false') {
      throw new Error(`--runtime-config: invalid value "${rawValue}" for "${key}" (use true or false)`);
    }
    if (key === 'api/all') {
      all = value;
      continue;
    }
    const parts = key.split('/');
    // The core group is written api/v1.
    if (parts[0] === 'api' && parts.length >= 2) parts[0] = '';
    if (parts.length === 2) groupVersions.set(`${parts[0]}/${parts[1]}`, value);
    else if (parts.length === 3) resources.set(`${parts[0]}/${parts[1]}/${parts[2]}`, value);
    else throw new Error(`--runtime-config: cannot parse "${entry}"`);
  }
  return kinds.filter((k) => {
    const res = resources.get(`${k.group}/${k.version}/${k.plural}`);
    if (res !== undefined) return res;
    const gv = groupVersions.get(`${k.group}/${k.version}`);
    if (gv !== undefined) return gv;
    // api/all decides for everything not named; otherwise the kind's own default (beta kinds are off).
    return all ?? k.enabledByDefault;
  });
}
