import type { IncomingMessage } from 'node:http';

/**
 * A request's whole body, or null once it passes `limit` bytes (the Slack receiver, the MCP
 * endpoint). A body over the limit is read to its end and thrown away when it is at most 8 times
 * the limit, so the sender, still writing, reads the 413 rather than a broken pipe; a bigger one is
 * answered at once and its connection closed.
 */
export function bodyWithin(request: IncomingMessage, limit: number): Promise<Buffer | null> {
  const drainCap = limit * 8;
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > limit;
    let settled = false;
    const settle = (body: Buffer | null) => {
      if (settled) return;
      settled = true;
      resolve(body);
    };
    if (over && declared > drainCap) settle(null);
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > drainCap) settle(null);
      if (over) return;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => settle(over ? null : Buffer.concat(chunks)));
    request.on('error', (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
  });
}
