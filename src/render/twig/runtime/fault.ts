/**
 * A render failure raised deep in the runtime, before the position is known. The compiled node
 * that catches it adds line, column and excerpt and turns it into a TemplateRenderError.
 */
export class RuntimeFault extends Error {
  override readonly name = 'RuntimeFault';
}

export function fail(message: string): never {
  throw new RuntimeFault(message);
}
