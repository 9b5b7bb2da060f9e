/**
 * The texts an editor reported through onChange that have not come back as its `value` yet.
 * The owner's state catches up with typing a render later, so a `value` may be an echo of an
 * earlier keystroke while the text has moved on; setting it back would drop what was typed
 * since. A value that is not an echo is a change from outside and is applied.
 */
export class Echoes {
  private texts: string[] = [];
  constructor(private readonly limit = 20) {}

  /** The editor reported `text`. */
  reported(text: string): void {
    this.texts.push(text);
    if (this.texts.length > this.limit) this.texts.shift();
  }

  /**
   * Whether `value` is an echo of a reported text (then it and the texts before it are done
   * with); otherwise the editor must take `value`, and nothing reported is awaited any more.
   */
  isEcho(value: string): boolean {
    const at = this.texts.lastIndexOf(value);
    if (at >= 0) {
      this.texts.splice(0, at + 1);
      return true;
    }
    this.texts = [];
    return false;
  }
}
