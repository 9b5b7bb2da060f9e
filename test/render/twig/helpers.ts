import type { PlatformContext } from '../../../src/render/platform.js';
import { compileTemplate, type RenderLimits, type RenderOptions } from '../../../src/render/twig/index.js';

/** Compiles and renders in one go; a fixed clock keeps date tests stable. */
export function render(
  template: string,
  data: unknown = {},
  platform: PlatformContext = {},
  options: RenderOptions = {},
  limits?: Partial<RenderLimits>,
): string {
  return compileTemplate(template, limits ? { limits } : undefined).render(data, platform, {
    now: Date.UTC(2024, 0, 15, 12, 0, 0),
    ...options,
  });
}

/** Own keys of Object.prototype and friends: must never change because of a render. */
export function prototypeSnapshot(): string {
  return JSON.stringify([
    Object.getOwnPropertyNames(Object.prototype).sort(),
    Object.getOwnPropertyNames(Array.prototype).sort(),
    Object.getOwnPropertyNames(Function.prototype).sort(),
    Object.getOwnPropertyNames(String.prototype).sort(),
  ]);
}
