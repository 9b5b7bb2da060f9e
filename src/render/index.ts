export * from './errors/index.js';
export {
  DEFAULT_OVERFLOW,
  type FittedMessage,
  OVERFLOW_MODES,
  type Overflow,
  TRUNCATION_MARKER,
} from './fit.js';
export { parseJsonData, parseJsonDataMember } from './json-data.js';
export { DEFAULT_FAILURE_IMAGE_URL, DEFAULT_LIMITS, MAX_MESSAGE_LENGTH } from './limits.js';
export type { Channel, Guild, PlatformContext, PlatformNeeds, Quote, Role, User } from './platform.js';
export { fitRendered, type MessageTemplate, type RenderedMessage, renderMessage } from './render-message.js';
export {
  type CompiledTemplate,
  compileTemplate,
  MAX_WARNINGS,
  type RenderLimits,
  type RenderOptions,
  type TemplateWarning,
} from './twig/index.js';
