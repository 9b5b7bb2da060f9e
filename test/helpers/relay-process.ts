import { spawn } from 'node:child_process';

/**
 * A relay stand-in in a process of its own, which records each request's arrival by its own
 * clock: a relay inside the test's process reads arrivals when that event loop (busy polling,
 * or starved on a loaded machine) gets to them, and a backlog read late looks like a burst.
 */
const RELAY = `
const http = require('node:http');
const arrivals = [];
const server = http.createServer((req, res) => {
  let text = '';
  req.on('data', (d) => { text += d; });
  req.on('end', () => {
    const at = Date.now();
    if (req.method === 'GET') { res.end(JSON.stringify(arrivals)); return; }
    const nonce = JSON.parse(text).nonce;
    arrivals.push({ nonce, at });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ code: 0, message: 'ok', data: { msg_id: 'up-' + nonce } }));
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

export interface Arrival {
  nonce: string;
  /** When the relay had read the whole request, by its own clock (ms since the epoch). */
  at: number;
}

export interface RelayProcess {
  readonly url: string;
  /** Every request it answered so far, in arrival order. */
  arrivals(): Promise<Arrival[]>;
  close(): Promise<void>;
}

/** Starts a relay that answers every message 200 with `up-<nonce>` as the upstream's id. */
export async function startRelayProcess(): Promise<RelayProcess> {
  const child = spawn(process.execPath, ['-e', RELAY], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`relay process exited (${code}) before listening`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    arrivals: async () => (await fetch(`${url}/arrivals`)).json() as Promise<Arrival[]>,
    close: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
