import type { TwigObject } from './twig-object.js';

/**
 * Every value a template can see. A number is a PHP int when it is a safe integer, else a PHP
 * float; a bigint is a PHP int beyond 2^53 (always outside the safe range, see int64.ts).
 */
export type Value = null | boolean | number | bigint | string | TwigObject;
