export {
  CATALOGUE,
  type ErrorDef,
  type ErrorKey,
  formatMessage,
  LANGS,
  type Lang,
  type LocalizedText,
  type ParamValue,
  SUCCESS_MESSAGE,
} from './catalogue.js';
export { DependencyError } from './dependency-error.js';
export { newErrorId } from './error-id.js';
export { type ErrorParams, HeraldError, isHeraldError } from './herald-error.js';
export { NotFoundError } from './not-found-error.js';
export { ValidationError } from './validation-error.js';
