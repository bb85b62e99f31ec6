/**
 * bench:bot's stand-in for Slack's response_url endpoints, in a process of its own: receiving
 * thousands of search answers a second in the benchmark's own process would slow its load
 * generator (autocannon) by Tenderbot's answers, which a bare Bolt app never sends.
 *
 * Started with an IPC channel (fork); says `{ url }` once listening, then, once per turn of its
 * event loop, `{ arrivals: [[id, at], …] }`: each command's first answer, `at` in epoch
 * milliseconds (performance.timeOrigin + performance.now(), comparable across processes).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const seen = new Set<string>();
let pending: [string, number][] = [];

const server = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  const id = (req.url ?? '').split('/').pop() ?? '';
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  if (seen.has(id)) return;
  seen.add(id);
  if (pending.push([id, at]) === 1) {
    setImmediate(() => {
      const arrivals = pending;
      pending = [];
      process.send?.({ arrivals });
    });
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ url: `http://127.0.0.1:${port}/answers` });
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close();
});
