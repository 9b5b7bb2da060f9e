export { MessageTooLongError } from './message-too-long-error.js';
export { TemplateCompileError } from './template-compile-error.js';
export { TemplateFeatureUnavailableError } from './template-feature-unavailable-error.js';
export { TemplateLimitError } from './template-limit-error.js';
export { TemplateRenderError } from './template-render-error.js';
