import https from 'node:https';

export interface WatchEvent {
  type: string;
  object: any;
}

export interface OpenWatch {
  /** Resolves when the stream ends (server closed it, or `abort()`). */
  readonly done: Promise<void>;
  abort(): void;
}

/**
 * Opens a watch and calls `onEvent` for every newline-delimited JSON event. The HTTP status is
 * checked: anything but 200 rejects `done` with the body.
 */
export function openWatch(base: string, path: string, agent: https.Agent, onEvent: (ev: WatchEvent) => void): OpenWatch {
  let req: ReturnType<typeof https.request> | undefined;
  let aborted = false;
  const done = new Promise<void>((resolve, reject) => {
    req = https.request(new URL(path, base), { agent, headers: { Accept: 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => reject(new Error(`watch answered ${res.statusCode}: ${body}`)));
        return;
      }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim() && !aborted) onEvent(JSON.parse(line) as WatchEvent);
        }
      });
      res.on('end', () => resolve());
      res.on('close', () => resolve());
      res.on('error', () => resolve());
    });
    req.on('error', (err) => (aborted ? resolve() : reject(err)));
    req.end();
  });
  return {
    done,
    abort: () => {
      aborted = true;
      req?.destroy();
    },
  };
}
