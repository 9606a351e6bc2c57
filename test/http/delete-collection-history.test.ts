import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

// History (and so continue tokens) lasts one second here: about as long as deleting 3,000 objects takes, far
// shorter than deleting them page by page while listing (which failed with 410 after the first pages).
const t = serveFile(['--history-window=1s', '--compaction-interval=100ms']);

test('deletecollection that runs longer than the history window still deletes everything and answers 200', async () => {
  const api = client(t.srv.url, t.srv.adminAgent);
  await api.post('/api/v1/namespaces', { metadata: { name: 'big' } });
  const base = '/api/v1/namespaces/big/configmaps';
  const total = 3000;
  for (let i = 0; i < total; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, total - i) }, (_, k) => api.post(base, { metadata: { name: `cm-${String(i + k).padStart(5, '0')}` } })),
    );
    assert.ok(batch.every((r) => r.status === 201));
  }
  const res = await api.delete(base);
  assert.equal(res.status, 200, res.text.slice(0, 300));
  assert.equal(res.json.items.length, total);
  assert.equal((await api.get(base)).json.items.length, 0);
});
