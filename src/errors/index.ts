export {
  CATALOGUE,
  catalogueMessage,
  DEFAULT_LANG,
  DELIVERY_REASONS,
  type ErrorDef,
  type ErrorKey,
  formatMessage,
  LANGS,
  type Lang,
  type LocalizedText,
  localized,
  type ParamValue,
  type ReasonCode,
  type ReasonDef,
  SUCCESS_MESSAGE,
} from './catalogue.js';
export { DeliveryError } from './delivery-error.js';
export { DependencyError } from './dependency-error.js';
export { newErrorId } from './error-id.js';
export { type ErrorParams, HeraldError, isHeraldError } from './herald-error.js';
export { NotFoundError } from './not-found-error.js';
export { revive, type SerializedError, serialize } from './serialize.js';
export { ValidationError } from './validation-error.js';
