/** Template rules of spec 2.2, 3.2 and 8, and Herald's own bounds. */

/** Review state (spec 3.2, field `status`). */
export const TEMPLATE_STATUS = {
  NOT_REVIEWED: 0,
  IN_REVIEW: 1,
  APPROVED: 2,
  REJECTED: 3,
} as const;
export type TemplateStatus = (typeof TEMPLATE_STATUS)[keyof typeof TEMPLATE_STATUS];

/** Template `msgtype`: how the rendered text is read (docs/cards.md; 4 is Herald's choice for XML). */
export const MSGTYPE = { KMD: 1, CARD_JSON: 2, CARD_YAML: 3, CARD_XML: 4 } as const;
export const MSGTYPES: readonly number[] = Object.values(MSGTYPE);

/** The platform message type a template of `msgtype` makes: 9 KMarkdown, 10 card (any card format). */
export const messageTypeOf = (msgtype: number): 9 | 10 => (msgtype === MSGTYPE.KMD ? 9 : 10);

/** Template `type`: 0 = Twig (the PHP-native template syntax); the only one there is. */
export const TEMPLATE_TYPES: readonly number[] = [0];

/**
 * Rate-limiter cost of one normal (template-less) message. Unreviewed templates carry exactly
 * this; an approved template may carry less (never more), and goes back to this when its content
 * changes.
 */
export const NORMAL_MESSAGE_CONSUMPTION = 1;

/** Spec section 8. Lengths count characters (code points): CJK and emoji count as one. */
export const MAX_TITLE_LENGTH = 64;
export const MAX_TEST_CHANNEL_LENGTH = 64;
/** Herald's bound on template text: ample for real card templates, small enough to compile fast. */
export const MAX_CONTENT_LENGTH = 65_536;
/** Herald's bound on test_data (JSON text). */
export const MAX_TEST_DATA_LENGTH = 65_536;
