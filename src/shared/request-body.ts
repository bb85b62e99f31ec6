import type { IncomingMessage, Server } from 'node:http';

/**
 * A request's whole body, or null as soon as it passes `limit` bytes (declared or read), for the
 * Slack receiver and the MCP endpoint to answer 413 at once. The connection is then kept while the
 * rest is read and thrown away, up to 8 times the limit, so a sender still writing reads the 413
 * rather than a broken pipe; past that the connection is cut. The caller must not ask for the
 * connection to close (`Connection: close` would cut it under the sender, as before).
 */
export function bodyWithin(request: IncomingMessage, limit: number): Promise<Buffer | null> {
  const drainCap = limit * 8;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const tooLarge = () => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      resolve(null);
    };
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) tooLarge();
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > drainCap) {
        request.socket.destroy();
        return;
      }
      if (settled) return;
      if (size > limit) tooLarge();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks));
    });
    request.on('error', (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
  });
}

/**
 * Node answers `Expect: 100-continue` with 100 Continue before any handler runs, inviting a body
 * the handler then refuses: the sender uploads it all for a 413. With this, a body declared over
 * `limit` is not invited, so the handler's own refusal is the first answer and nothing is sent.
 * Every server that reads bodies through `bodyWithin` (or a framework's body limit) calls it.
 */
export function inviteBodiesWithin(server: Server, limit: number): void {
  server.on('checkContinue', (request: IncomingMessage, response) => {
    const declared = Number(request.headers['content-length']);
    if (!(Number.isFinite(declared) && declared > limit)) response.writeContinue();
    server.emit('request', request, response);
  });
}
