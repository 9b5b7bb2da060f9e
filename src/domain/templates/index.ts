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
  createTemplate,
  deleteTemplate,
  getTemplate,
  getTemplateForSend,
  listTemplates,
  type SavedTemplate,
  type TemplateInput,
  templateForSend,
  templateLockKey,
  updateTemplate,
} from './templates.js';
