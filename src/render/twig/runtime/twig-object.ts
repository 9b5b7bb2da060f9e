/**
 * Base class of every non-scalar value a template can hold (arrays, dates, the platform object,
 * arrow functions). The runtime only ever hands these and scalars to a template, so a template can
 * never reach a host object: anything else found in input data is treated as null.
 */
export abstract class TwigObject {
  /** PHP class name, used in messages such as "Object of class X could not be converted". */
  abstract readonly phpClass: string;
}
