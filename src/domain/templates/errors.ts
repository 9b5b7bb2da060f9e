import { HeraldError } from '../../errors/index.js';

const TEMPLATE = { 'zh-CN': '模板', 'en-US': 'template' } as const;

/**
 * No such template for this bot: absent, deleted, or another bot's (never said which). 404 with
 * `data.field` naming the id field.
 */
export class TemplateNotFoundError extends HeraldError {
  override readonly name = 'TemplateNotFoundError';
  constructor(field = 'id') {
    super('NOT_FOUND', { resource: TEMPLATE }, { data: { field } });
  }
}

/**
 * The template exists (or existed) but cannot be used to send: `reason` tells the pipe worker
 * what to record. Thrown by getTemplateForSend.
 */
export class TemplateUnavailableError extends HeraldError {
  override readonly name = 'TemplateUnavailableError';
  readonly reason: 'deleted' | 'banned';
  readonly templateId: string;
  constructor(reason: 'deleted' | 'banned', templateId: string) {
    super(
      reason === 'deleted' ? 'TEMPLATE_DELETED' : 'TEMPLATE_BANNED',
      { id: templateId },
      {
        data: { id: templateId, reason },
      },
    );
    this.reason = reason;
    this.templateId = templateId;
  }
}

/** A review action the transition table does not allow from the template's current status. */
export class TemplateTransitionError extends HeraldError {
  override readonly name = 'TemplateTransitionError';
  constructor(action: string, status: number) {
    super('TEMPLATE_REVIEW_TRANSITION', { action, status }, { data: { action, status } });
  }
}

/**
 * A send's `type` that disagrees with its template's format (send-pipemsg refuses it before
 * queuing; a worker fails a message whose template's format changed since). 400, 40023.
 */
export class TemplateTypeMismatchError extends HeraldError {
  override readonly name = 'TemplateTypeMismatchError';
  constructor(type: number, templateId: string, expected: number) {
    super(
      'TEMPLATE_TYPE_MISMATCH',
      { type, id: templateId, expected },
      { data: { field: 'type', type, template_id: templateId, expected } },
    );
  }
}
