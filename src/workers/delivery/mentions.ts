/**
 * Mentions of everyone (`(met)all(met)`) and of online members (`(met)here(met)`) need the
 * mention-everyone permission. Without it they are neutralised: rewritten as the plain text
 * `@all` / `@here`, which the platform shows as written and which notifies nobody. The same
 * rewrite applies inside card JSON (the mention is a substring of a kmarkdown string there, and
 * the replacement contains no character JSON would need escaped).
 */
const GROUP_MENTION = /\(met\)(all|here)\(met\)/g;

export interface MentionCheck {
  readonly content: string;
  /** The group mentions removed, in first-seen order: a subset of ['all', 'here']. */
  readonly blocked: string[];
}

export function neutraliseGroupMentions(content: string, mayMentionEveryone: boolean): MentionCheck {
  if (mayMentionEveryone || !content.includes('(met)')) return { content, blocked: [] };
  const blocked: string[] = [];
  const out = content.replace(GROUP_MENTION, (_whole, who: string) => {
    if (!blocked.includes(who)) blocked.push(who);
    return `@${who}`;
  });
  return { content: out, blocked };
}
