import { randomUUID } from 'node:crypto';

/*
 * Changes this process made, told to its own caches at once. Other processes learn of a change
 * through Redis pub/sub (directory/change-feed.ts, pipes/pipe-cache.ts), and so did this one
 * until now: its own subscription delivers the message some time after the write has answered,
 * so a request right behind an operator's change (a disabled bot, a rotated or deleted pipe
 * token) could still be served from the old entry by the very process that made the change.
 * Domain writes emit here before they answer; listeners run synchronously.
 *
 * What this process publishes carries its `origin`, and its subscribers skip messages of their
 * own origin: the entry was dropped at the write already, and dropping it again when the echo
 * arrives would only throw away what a request re-read meanwhile.
 */

export type DirectoryChangeKind = 'guild' | 'channel' | 'member' | 'user' | 'template' | 'bot';

export interface DirectoryChange {
  readonly kind: DirectoryChangeKind;
  /** The guild, channel, user, template or bot id; for a member, the member's user id. */
  readonly id: string;
  /** For channels and members: their guild. */
  readonly guild_id?: string;
  /** The publishing process (LocalChanges.origin); absent from older publishers. */
  readonly origin?: string;
}

/** A changed pipe (its token, state, channel or template), or any change of the directory feed. */
export type LocalChange = { readonly kind: 'pipe'; readonly id: string } | DirectoryChange;

export type LocalChangeListener = (change: LocalChange) => void;

export class LocalChanges {
  private readonly listeners = new Set<LocalChangeListener>();

  /** @param origin this process's id in what it publishes (random: unique per process). */
  constructor(readonly origin: string = randomUUID()) {}

  /** Calls `listener` for every change from now on; answers a function that stops it. */
  on(listener: LocalChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Tells every listener, synchronously. A listener's error is not the writer's: it is passed over. */
  emit(change: LocalChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A cache that cannot drop an entry still has its TTL and the pub/sub message.
      }
    }
  }
}
