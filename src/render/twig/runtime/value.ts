import type { TwigObject } from './twig-object.js';

/** Every value a template can see. Numbers are PHP ints when integral, else PHP floats. */
export type Value = null | boolean | number | string | TwigObject;
