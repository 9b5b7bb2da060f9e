/*
 * How a template pipe's input travels in its job. The body's bytes go as base64 and become text
 * once, on a render thread. Why not the text itself: a body with characters outside ASCII (any
 * Chinese commit message) is a two-byte JS string, and inside the job's JSON every quote of it is
 * escaped. On the worker's main thread, decoding such a 50 KB GitLab push out of Redis's reply
 * and JSON-parsing the job were the largest items of its CPU profile after garbage collection
 * (`BENCH_PROF=<dir> npm run bench:worker` writes that profile); base64 is plain ASCII with
 * nothing to escape, and its decoding moves to the render thread. The ingest saves too:
 * stringifying the job skips escaping the body.
 *
 * No dependencies: the render threads import this.
 */

/** How PipeJob.input is written when it is not plain text. */
export type InputEncoding = 'base64';

/** A template pipe's input: the body's bytes, base64. */
export const bodyInput = (bytes: Buffer): { input: string; input_encoding: InputEncoding } => ({
  input: bytes.toString('base64'),
  input_encoding: 'base64',
});

/**
 * The input as text: base64 decoded as UTF-8 (invalid bytes become U+FFFD, as when the body was
 * first read), or the text itself (plain pipes' content, and jobs written before base64).
 */
export const inputText = (input: string, encoding: InputEncoding | undefined): string =>
  encoding === 'base64' ? Buffer.from(input, 'base64').toString('utf8') : input;
