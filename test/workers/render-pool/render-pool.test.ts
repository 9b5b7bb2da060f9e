import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DeliveryError, HeraldError } from '../../../src/errors/index.js';
import { createLogger } from '../../../src/log/logger.js';
import { bodyInput } from '../../../src/queue/job-input.js';
import { compileTemplate } from '../../../src/render/index.js';
import { unpackText } from '../../../src/text/packed-text.js';
import { RenderPool, type RenderTask } from '../../../src/workers/render-pool/render-pool.js';
import { WorkerClosingError } from '../../../src/workers/worker-closing-error.js';
import { standInThread } from '../helpers.js';

/** Renders on worker threads: same results and errors as on the main thread, and a hard stop. */
const lines: string[] = [];
const log = createLogger('debug', (l) => lines.push(l));
const pools: RenderPool[] = [];
const pool = (size: number, hardTimeoutMs?: number) => {
  const p = new RenderPool(size, log, hardTimeoutMs);
  pools.push(p);
  return p;
};
/**
 * One thread for the tests that only render (each thread loads the render code through tsx: about
 * a second of CPU); the tests that stop, kill or close threads make their own.
 */
let sharedThread: RenderPool | undefined;
const sharedPool = (): RenderPool => {
  sharedThread ??= pool(1);
  return sharedThread;
};
afterAll(async () => {
  for (const p of pools) await p.close();
});

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/gitlab/${name}`, import.meta.url), 'utf8');
const NOW = Date.UTC(2026, 0, 1);
function task(source: string, input: string, msgtype = 1, key = `t-${source.length}:1`): RenderTask {
  return {
    templateKey: key,
    source,
    compiled: compileTemplate(source),
    msgtype,
    input,
    inputEncoding: undefined,
    platform: {},
    now: NOW,
  };
}
const standIn = (source: string, input: string): RenderTask => ({ ...task('x', input), source });

const errorOf = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('render pool', () => {
  it('renders the GitLab push card on a thread byte-identical to the main thread', async () => {
    const t = task(fixture('push-card.json.twig'), fixture('push-large.json'), 2, 'gitlab:1');
    const threaded = await sharedPool().render(t);
    const inline = await pool(0).render(t);
    expect(threaded.type).toBe(10);
    expect(threaded.content.length).toBeGreaterThan(10_000);
    expect(threaded).toEqual(inline);
    // Packed for the delivery record on the thread, and whole again unpacked.
    expect(threaded.packed?.length).toBeLessThan(threaded.content.length / 4);
    expect(unpackText(threaded.packed as string)).toBe(threaded.content);
  });

  it("answers the render's warnings from a thread as the main thread does", async () => {
    const t = task('{{ data.tags }} {{ data.n * 2 }}', '{"tags":["a"],"n":"4 items"}', 1, 'warn:1');
    const threaded = await sharedPool().render(t);
    expect(threaded).toEqual(await pool(0).render(t));
    expect(threaded.content).toBe('Array 8');
    expect(threaded.warnings).toEqual([
      { message: 'Array to string conversion', line: 1, column: 1 },
      { message: 'A non-numeric value encountered', line: 1, column: 27 },
    ]);
    expect(threaded.warningCount).toBe(2);
  });

  it('takes the body as the ingest writes it (deflated, base64; or base64), with the same result as the text', async () => {
    const text = fixture('push-large.json');
    expect(/[\u0080-\uffff]/.test(text)).toBe(true); // CJK commit messages: the case base64 is for
    const t = task(fixture('push-card.json.twig'), text, 2, 'gitlab:1');
    const written = bodyInput(Buffer.from(text));
    expect(written.input_encoding).toBe('deflate-base64');
    const packed = { ...t, input: written.input, inputEncoding: written.input_encoding };
    const b64 = { ...t, input: Buffer.from(text).toString('base64'), inputEncoding: 'base64' as const };
    const fromText = await sharedPool().render(t);
    for (const job of [packed, b64]) {
      expect(await sharedPool().render(job)).toEqual(fromText);
      expect(await pool(0).render(job)).toEqual(fromText);
    }
    expect(fromText.content).toContain(JSON.parse(text).commits[0].message.split('\n')[0]);
  });

  it('answers a deflated input that does not inflate as a permanent INPUT_INVALID failure', async () => {
    const corrupt = {
      ...task('{{ data }}', ''),
      input: 'bm90IGRlZmxhdGU=',
      inputEncoding: 'deflate-base64' as const,
    };
    for (const p of [sharedPool(), pool(0)]) {
      const err = await errorOf(p.render(corrupt));
      expect(err).toBeInstanceOf(DeliveryError);
      expect((err as DeliveryError).reason).toBe('INPUT_INVALID');
      expect((err as DeliveryError).params).toMatchObject({
        detail: { 'zh-CN': '无法解码任务输入', 'en-US': 'the job input could not be decoded' },
      });
    }
  });

  it('keeps integer-like key order (PHP json_decode) on the thread', async () => {
    const t = task('{% for k, v in data %}{{ k }}={{ v }};{% endfor %}', '{"b":"x","10":"y","2":"z"}');
    expect((await sharedPool().render(t)).content).toBe('b=x;10=y;2=z;');
  });

  it('brings render errors back with their catalogue key, code and data', async () => {
    const source = 'line one\n{{ data.when|date("Y") }}';
    const input = '{"when":"not a date"}';
    const threaded = await errorOf(sharedPool().render(task(source, input)));
    const inline = await errorOf(pool(0).render(task(source, input)));
    expect(threaded).toBeInstanceOf(HeraldError);
    const [a, b] = [threaded as HeraldError, inline as HeraldError];
    expect(a.key).toBe('TEMPLATE_RENDER');
    expect(a.data).toMatchObject({ line: 2 });
    expect({ key: a.key, code: a.code, status: a.status, message: a.message, data: a.data }).toEqual({
      key: b.key,
      code: b.code,
      status: b.status,
      message: b.message,
      data: b.data,
    });
  });

  it('answers input that is not JSON as a permanent INPUT_INVALID failure', async () => {
    const err = await errorOf(sharedPool().render(task('{{ data }}', '{"broken"')));
    expect(err).toBeInstanceOf(DeliveryError);
    expect((err as DeliveryError).reason).toBe('INPUT_INVALID');
  });

  it('stops a render past the hard limit, replaces the thread, and goes on', async () => {
    // The engine stops a render after 50 ms of its own clock, or after a million steps; a hard
    // limit below that must end the thread first. This loop would run far longer than both, and
    // spends its time in few steps (each builds a 20,000-item range): a plain nested loop reached
    // a million steps in 25-35 ms on a fast run, before a 30 ms hard limit.
    const p = pool(1, 20);
    await p.ready();
    const slow = task(
      '{% for i in 1..100000 %}{% set x = (1..20000)|length %}{% endfor %}',
      '{}',
      1,
      'slow:1',
    );
    const err = await errorOf(p.render(slow));
    expect(err).toBeInstanceOf(HeraldError);
    expect((err as HeraldError).key).toBe('TEMPLATE_LIMIT');
    expect((err as HeraldError).data).toMatchObject({ limit: 'time' });
    expect(lines.join('\n')).toContain('render overran its hard limit');
    // The replacement renders (a slow machine may overrun 20 ms once more while it warms up).
    const quick = task('ok {{ data.n }}', '{"n":1}', 1, 'quick:1');
    await expect
      .poll(
        async () => {
          await p.ready();
          return (await p.render(quick).catch(() => ({ content: 'overran' }))).content;
        },
        { timeout: 45_000, interval: 10 },
      )
      .toBe('ok 1');
    // On a loaded machine replacements may overrun 20 ms for many seconds (docs/testing.md).
  }, 60_000);

  it('charges a render only for its own run: those queued behind a slow one pass, the slow one is stopped', async () => {
    const p = new RenderPool(1, log, 300, standInThread());
    pools.push(p);
    await p.ready();
    // Three renders of 200 ms each on one thread: the last waits 400 ms in the queue, which is
    // not its own run time, so none is stopped.
    const spins = await Promise.all(['a', 'b', 'c'].map((n) => p.render(standIn('spin 200', n))));
    expect(spins.map((r) => r.content)).toEqual(['done a', 'done b', 'done c']);

    const started = Date.now();
    const stuck = errorOf(p.render(standIn('spin 60000', 'stuck')));
    const behind = ['d', 'e'].map((n) => p.render(standIn('quick', n)));
    const err = await stuck;
    expect(err).toBeInstanceOf(HeraldError);
    expect((err as HeraldError).key).toBe('TEMPLATE_LIMIT');
    expect((err as HeraldError).data).toMatchObject({ limit: 'time' });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(5_000);
    // The renders queued behind it never started: they go to the new thread and succeed rather
    // than fail (which would have spent an attempt of each message).
    expect((await Promise.all(behind)).map((r) => r.content)).toEqual(['done d', 'done e']);
  });

  it('a thread that dies mid-render: that render is rejected for a retry, the ones behind it run', async () => {
    const p = new RenderPool(1, log, 60_000, standInThread());
    pools.push(p);
    await p.ready();
    const dying = errorOf(p.render(standIn('exit', 'dying')));
    const behind = ['f', 'g'].map((n) => p.render(standIn('quick', n)));
    const err = await dying;
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(HeraldError);
    expect(String(err)).toContain('render thread exited (7)');
    expect((await Promise.all(behind)).map((r) => r.content)).toEqual(['done f', 'done g']);
  });

  it('replaces a thread that dies; its renders are rejected for a retry, later ones work', async () => {
    const p = pool(1);
    const quick = task('ok {{ data.n }}', '{"n":2}', 1, 'quick:2');
    expect((await p.render(quick)).content).toBe('ok 2');
    const slots = (p as unknown as { slots: Array<{ thread: { terminate(): Promise<number> } }> }).slots;
    await slots[0]?.thread.terminate();
    await expect.poll(() => lines.join('\n'), { timeout: 5_000 }).toContain('render thread exited');
    expect((await p.render(quick)).content).toBe('ok 2');
  });

  it('a thread that cannot load is not replaced in a loop: ready() rejects, renders run on the main thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-render-'));
    const broken = join(dir, 'broken-thread.mjs');
    writeFileSync(broken, "throw new Error('broken module');\n");
    const exits = join(dir, 'exiting-thread.mjs');
    writeFileSync(exits, 'process.exit(3);\n');
    const before = lines.length;
    const p = new RenderPool(1, log, undefined, pathToFileURL(broken));
    pools.push(p);
    const err = await errorOf(p.ready());
    expect(String(err)).toContain('render thread could not start: broken module');
    // Given time to loop, it logs the failure once and starts no other thread.
    await new Promise((r) => setTimeout(r, 300));
    const failures = lines.slice(before).filter((l) => l.includes('render thread could not start'));
    expect(failures).toHaveLength(1);
    expect(JSON.parse(failures[0] as string)).toMatchObject({ threads_left: 0, rendering_on: 'main thread' });
    const t = task('ok {{ data.n }}', '{"n":3}', 1, 'fallback:1');
    expect(await p.render(t)).toEqual(await pool(0).render(t));

    const q = new RenderPool(1, log, undefined, pathToFileURL(exits));
    pools.push(q);
    expect(String(await errorOf(q.ready()))).toContain('exited (3) before it could render');
  });

  it('refuses work once closed', async () => {
    const p = pool(1);
    await p.close();
    await p.close();
    expect(await errorOf(p.render(task('x', '{}')))).toBeInstanceOf(WorkerClosingError);
  });

  it('closing rejects the renders in flight with WorkerClosingError (their jobs run elsewhere)', async () => {
    const p = new RenderPool(1, log, 60_000, standInThread());
    pools.push(p);
    await p.ready();
    const spinning = errorOf(p.render(standIn('spin 5000', 'cut off')));
    const queued = errorOf(p.render(standIn('quick', 'behind it')));
    await new Promise((r) => setTimeout(r, 100));
    await p.close();
    expect(await spinning).toBeInstanceOf(WorkerClosingError);
    expect(await queued).toBeInstanceOf(WorkerClosingError);
  });
});
