export * from './constants.js';
export * from './errors.js';
export {
  checkTestData,
  type PreviewRequest,
  parseJsonText,
  previewContext,
  previewTemplate,
  type RenderedMessage,
  renderSource,
  testRenderWarnings,
} from './preview.js';
export {
  approveTemplate,
  banTemplate,
  nextStatus,
  REVIEW_TRANSITIONS,
  type ReviewAction,
  rejectTemplate,
  statusAfterContentChange,
  submitTemplate,
  unbanTemplate,
} from './review.js';
export {
  changeTemplate,
  getTemplate,
  getTemplateForSend,
  templateForSend,
  templateLockKey,
} from './template-records.js';
export {
  createTemplate,
  deleteTemplate,
  getTemplateAnyBot,
  listTemplates,
  listTemplatesAnyBot,
  type SavedTemplate,
  type TemplateInput,
  updateTemplate,
} from './templates.js';
