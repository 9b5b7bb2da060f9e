/** The card JSON shapes (platform facts, "Card message structure"), as validation guarantees them. */

export type CardTheme =
  | 'primary'
  | 'success'
  | 'danger'
  | 'warning'
  | 'info'
  | 'secondary'
  | 'none'
  | 'invisible';
export type Size = 'sm' | 'lg';

export interface PlainTextElement {
  type: 'plain-text';
  content: string;
  emoji?: boolean;
}

export interface KMarkdownElement {
  type: 'kmarkdown';
  content: string;
}

export interface ImageElement {
  type: 'image';
  src: string;
  alt?: string;
  size?: Size;
  circle?: boolean;
  fallbackUrl?: string;
}

export interface ButtonElement {
  type: 'button';
  text: PlainText | KMarkdownElement;
  theme?: CardTheme;
  value?: string;
  click?: '' | 'link' | 'return-val';
}

/** A bare string stands for a plain-text element with that content. */
export type PlainText = string | PlainTextElement;
export type TextElement = PlainText | KMarkdownElement;

export interface Paragraph {
  type: 'paragraph';
  cols: number;
  fields: TextElement[];
}

export type CardElement = PlainTextElement | KMarkdownElement | ImageElement | ButtonElement;

export interface HeaderModule {
  type: 'header';
  text: PlainText;
}

export interface SectionModule {
  type: 'section';
  text: TextElement | Paragraph;
  accessory?: ImageElement | ButtonElement;
  mode?: 'left' | 'right';
}

export interface ImageGroupModule {
  type: 'image-group';
  elements: ImageElement[];
}

export interface ContainerModule {
  type: 'container';
  elements: ImageElement[];
}

export interface ActionGroupModule {
  type: 'action-group';
  elements: ButtonElement[];
}

export interface ContextModule {
  type: 'context';
  elements: (TextElement | ImageElement)[];
}

export interface DividerModule {
  type: 'divider';
}

export interface FileModule {
  type: 'file' | 'video';
  src: string;
  title?: string;
}

export interface AudioModule {
  type: 'audio';
  src: string;
  title?: string;
  cover?: string;
}

export interface CountdownModule {
  type: 'countdown';
  endTime: number;
  startTime?: number;
  mode: 'day' | 'hour' | 'second';
}

export interface InviteModule {
  type: 'invite';
  code: string;
}

export type CardModule =
  | HeaderModule
  | SectionModule
  | ImageGroupModule
  | ContainerModule
  | ActionGroupModule
  | ContextModule
  | DividerModule
  | FileModule
  | AudioModule
  | CountdownModule
  | InviteModule;

export interface Card {
  type: 'card';
  theme?: CardTheme;
  color?: string;
  size?: Size;
  modules: CardModule[];
}

/** What a card template renders to: the content of a type-10 message. */
export type CardMessage = Card[];

export type CardFormat = 'json' | 'yaml' | 'xml';
