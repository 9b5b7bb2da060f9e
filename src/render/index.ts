export * from './errors/index.js';
export { parseJsonData, parseJsonDataMember } from './json-data.js';
export { DEFAULT_FAILURE_IMAGE_URL, DEFAULT_LIMITS, MAX_MESSAGE_LENGTH } from './limits.js';
export type { Channel, Guild, PlatformContext, PlatformNeeds, Quote, Role, User } from './platform.js';
export { type MessageTemplate, type RenderedMessage, renderMessage } from './render-message.js';
export {
  type CompiledTemplate,
  compileTemplate,
  MAX_WARNINGS,
  type RenderLimits,
  type RenderOptions,
  type TemplateWarning,
} from './twig/index.js';
