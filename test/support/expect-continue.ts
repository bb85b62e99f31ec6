import { connect } from 'node:net';

/**
 * Sends only the head of a POST that asks `Expect: 100-continue` for a body of `declaredBytes`,
 * and returns the status of the first answer: 100 invites the body, anything else refuses it
 * before a byte is sent (as curl and undici wait to be invited).
 */
export async function firstAnswerToExpect(
  url: string,
  declaredBytes: number,
  headers: Record<string, string> = {},
  timeoutMs = 3000,
): Promise<number> {
  const { port, hostname, pathname } = new URL(url);
  const head = [
    `POST ${pathname} HTTP/1.1`,
    `Host: ${hostname}`,
    'Expect: 100-continue',
    `Content-Length: ${declaredBytes}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  return new Promise<number>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to an Expect within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.once('data', (chunk: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Number(chunk.split(' ')[1]));
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
