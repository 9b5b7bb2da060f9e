import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text (Content-Length bytes, or everything up to the close). */
  readonly text: string;
}

/**
 * Writes `data` to a fresh connection as it is (nothing checked or added) and resolves with the
 * first response the server writes, as soon as it is complete: the request may stay unfinished
 * (a body never sent), so an answer that waits for the body never comes.
 */
export function rawRequest(base: string, data: string | Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (r: RawResponse | Error): void => {
      if (done) return;
      done = true;
      socket.destroy();
      if (r instanceof Error) reject(r);
      else resolve(r);
    };
    const parse = (closed: boolean): void => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) {
        if (closed)
          finish(new Error(`connection closed without an answer: ${JSON.stringify(String(received))}`));
        return;
      }
      const [statusLine = '', ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = received.subarray(end + 4);
      const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
      if (length === undefined ? !closed : body.length < length) {
        if (closed) finish(new Error(`connection closed mid-answer: ${JSON.stringify(String(received))}`));
        return;
      }
      const status = Number(statusLine.split(' ')[1]);
      finish({ status, headers, text: body.subarray(0, length ?? body.length).toString('utf8') });
    };
    socket.on('connect', () => socket.write(data));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      parse(false);
    });
    socket.on('close', () => parse(true));
    // The server may answer and close while the request is still being written.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') finish(err);
    });
  });
}
