/**
 * Start-up errors of the admission configuration, in kube-apiserver's words: the file itself
 * (`failed to read plugin config: …`), a plugin whose configuration cannot be decoded (its factory
 * failed: `couldn't init admission plugin "<name>": …`) or does not validate once built
 * (`failed to initialize admission plugin "<name>": …`).
 */
import { StartupError } from '../../startup-error.ts';

export class AdmissionConfigError extends StartupError {
  override name = 'AdmissionConfigError';
}

/** The plugin's configuration could not be decoded or was refused by its factory. */
export function pluginFactoryError(plugin: string, why: string): AdmissionConfigError {
  return new AdmissionConfigError(`couldn't init admission plugin "${plugin}": ${why}`);
}

/** The plugin was built but its configuration failed the initialization checks. */
export function pluginInitializationError(plugin: string, why: string): AdmissionConfigError {
  return new AdmissionConfigError(`failed to initialize admission plugin "${plugin}": ${why}`);
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
};

/** Go's text for a failed os.ReadFile (`open <path>: no such file or directory`; reading a directory fails at read). */
export function goReadFileError(file: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const text = (e.code && ERRNO_TEXT[e.code]) ?? e.message;
  return `${e.code === 'EISDIR' ? 'read' : 'open'} ${file}: ${text}`;
}
