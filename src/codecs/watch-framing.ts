import type { WatchEventType } from '../api/types.ts';

/**
 * JSON watch framing: one `{"type":…,"object":…}` document per line, exactly as the real server
 * streams `application/json` watches.
 *
 * @example
 * frameWatchEvent('ADDED', { kind: 'ConfigMap', … }) // '{"type":"ADDED","object":{"kind":"ConfigMap",…}}\n'
 */
export function frameWatchEvent(type: WatchEventType, object: unknown): string {
  return frameSerializedWatchEvent(type, JSON.stringify(object));
}

/**
 * Frames an object that is already JSON text, so a watch hub can serialize an object once and
 * send it to every watcher.
 */
export function frameSerializedWatchEvent(type: WatchEventType, objectJson: string): string {
  return `{"type":"${type}","object":${objectJson}}\n`;
}
