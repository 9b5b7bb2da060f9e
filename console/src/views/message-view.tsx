/** A rendered message as stored on a delivery: type 1 KMarkdown, 10 card (a JSON array of cards). */
export interface RenderedMessage {
  type: number;
  content: string;
}

/**
 * Draws a message as the platform shows it, with a toggle to its raw text.
 * Placeholder until the card and KMarkdown views land: shows the raw content.
 */
export function MessageView(props: { message: RenderedMessage }) {
  return <pre class="raw">{props.message.content}</pre>;
}
