import { UPSTREAM_DEFAULT_ON, UPSTREAM_PLUGIN_ORDER } from './plugin-names.ts';

/**
 * The admission plugins to run, in order, from --enable-admission-plugins and
 * --disable-admission-plugins, with upstream's rules: the default set plus the enabled minus the
 * disabled; an unknown name or a name in both flags is an error. `implemented` are the plugins this
 * server has: enabling an upstream plugin it does not have yet is an error too (it would otherwise
 * look enforced and not be); a default-on plugin it does not have is simply absent, and disabling
 * one is accepted.
 */
export function enabledPluginNames(enable: readonly string[], disable: readonly string[], implemented: ReadonlySet<string>): string[] {
  const known = new Set(UPSTREAM_PLUGIN_ORDER);
  const errors: string[] = [];
  for (const name of enable) {
    if (!known.has(name)) errors.push(`enable-admission-plugins plugin "${name}" is unknown`);
    else if (!implemented.has(name)) errors.push(`enable-admission-plugins plugin "${name}" is not implemented by this server yet`);
  }
  for (const name of disable) {
    if (!known.has(name)) errors.push(`disable-admission-plugins plugin "${name}" is unknown`);
  }
  const both = [...new Set(enable)].filter((n) => disable.includes(n)).sort();
  if (both.length > 0) errors.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  if (errors.length > 0) throw new Error(errors.join('; '));

  const on = new Set([...UPSTREAM_DEFAULT_ON, ...enable]);
  for (const name of disable) on.delete(name);
  return UPSTREAM_PLUGIN_ORDER.filter((name) => on.has(name) && implemented.has(name));
}
