/** Which PLATFORM data a template can ask for, so callers load only that. */
export interface PlatformNeeds {
  guild: boolean;
  guildById: boolean;
  channel: boolean;
  sender: boolean;
  targetUser: boolean;
  quote: boolean;
}

export const PLATFORM_GLOBALS = new Set(['PLATFORM', 'KOOK']);

export function noNeeds(): PlatformNeeds {
  return { guild: false, guildById: false, channel: false, sender: false, targetUser: false, quote: false };
}

export function allNeeds(n: PlatformNeeds): void {
  n.guild = n.guildById = n.channel = n.sender = n.targetUser = n.quote = true;
}

/** Records the need behind `PLATFORM.<attr>(args)`, resolving names the way Twig does (get/is/has, any case). */
export function recordNeed(n: PlatformNeeds, attr: string, argCount: number): void {
  const lc = attr.toLowerCase();
  const bare = lc.replace(/^(get|is|has)/, '');
  const name = ['guild', 'channel', 'sender', 'targetuser', 'quote', 'image'].includes(lc) ? lc : bare;
  switch (name) {
    case 'guild':
      if (argCount > 0) n.guildById = true;
      else n.guild = true;
      break;
    case 'channel':
      n.channel = true;
      break;
    case 'sender':
      n.sender = true;
      break;
    case 'targetuser':
      n.targetUser = true;
      break;
    case 'quote':
      n.quote = true;
      break;
    default:
      break;
  }
}
