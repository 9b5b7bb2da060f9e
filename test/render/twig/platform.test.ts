import { describe, expect, it } from 'vitest';
import { DEFAULT_FAILURE_IMAGE_URL } from '../../../src/render/limits.js';
import type { Guild, PlatformContext } from '../../../src/render/platform.js';
import { compileTemplate } from '../../../src/render/twig/index.js';
import { render } from './helpers.js';

const guild = (id: string, name: string): Guild => ({
  id,
  name,
  topic: '',
  user_id: 'u1',
  icon: '',
  notify_type: 0,
  region: 'beijing',
  enable_open: false,
  open_id: '',
  default_channel_id: 'c1',
  welcome_channel_id: '',
  roles: [{ role_id: 1, name: 'Admin', color: 0, position: 1, hoist: 0, mentionable: 0, permissions: 1 }],
  channels: [],
});

const ctx: PlatformContext = {
  guild: guild('g1', 'Home'),
  joinedGuilds: { g2: guild('g2', 'Other') },
  sender: {
    id: 'u9',
    username: 'bob',
    identify_num: '0001',
    online: true,
    bot: false,
    status: 0,
    avatar: 'a.png',
  },
  quote: {
    id: 'q1',
    type: 1,
    content: 'hi',
    create_at: 1700000000000,
    author: { id: 'u2', username: 'al', identify_num: '2', online: false, bot: false, status: 0, avatar: '' },
  },
};

describe('PLATFORM / KOOK', () => {
  it('answers the platform objects as arrays', () => {
    expect(
      render(
        '{{ PLATFORM.getGuild().name }}|{{ KOOK.getSender().username }}|{{ PLATFORM.getQuote().author.username }}',
        {},
        ctx,
      ),
    ).toBe('Home|bob|al');
    expect(
      render(
        '{{ PLATFORM.guild.roles[0].name }}|{{ PLATFORM.sender.id }}|{{ PLATFORM.getsender.id }}',
        {},
        ctx,
      ),
    ).toBe('Admin|u9|u9');
    expect(
      render('{{ PLATFORM.getChannel() is null }}|{{ PLATFORM.getTargetUser() is null }}', {}, ctx),
    ).toBe('1|1');
  });

  it('getGuild(id) answers only for joined servers', () => {
    expect(
      render(
        '[{{ PLATFORM.getGuild("g2").name }}][{{ PLATFORM.getGuild("g1").name }}][{{ PLATFORM.getGuild("nope") }}]',
        {},
        ctx,
      ),
    ).toBe('[Other][][]');
    expect(
      render('[{{ PLATFORM.getGuild("constructor") }}][{{ PLATFORM.getGuild("__proto__") }}]', {}, ctx),
    ).toBe('[][]');
  });

  it('image() keeps http(s) urls, else the default, else the failure image', () => {
    expect(
      render(
        '{{ PLATFORM.image("https://x/a.png") }}|{{ PLATFORM.image("ftp://x", "d.png") }}|{{ PLATFORM.image("HTTPS://x") }}',
        {},
        {},
      ),
    ).toBe(`https://x/a.png|d.png|${DEFAULT_FAILURE_IMAGE_URL}`);
    expect(render('{{ PLATFORM.image(null, "") }}', {}, { defaultImageUrl: 'https://img/f.png' })).toBe(
      'https://img/f.png',
    );
  });

  it('printing a platform object is an error and printing an array only a warning, as in PHP', () => {
    expect(() => render('{{ PLATFORM }}', {}, ctx)).toThrow();
    const r = compileTemplate('{{ PLATFORM.getGuild() }}').renderWithWarnings({}, ctx);
    expect(r.output).toBe('Array');
    expect(r.warnings).toEqual([{ message: 'Array to string conversion', line: 1, column: 1 }]);
  });

  it('works out at compile time which data the template can ask for', () => {
    const needs = (t: string) => compileTemplate(t).platformNeeds;
    expect(needs('{{ data.x }}')).toEqual({
      guild: false,
      guildById: false,
      channel: false,
      sender: false,
      targetUser: false,
      quote: false,
    });
    expect(
      needs('{{ PLATFORM.getSender().username }}{{ KOOK.channel.name }}{{ PLATFORM.image(data.u) }}'),
    ).toEqual({
      guild: false,
      guildById: false,
      channel: true,
      sender: true,
      targetUser: false,
      quote: false,
    });
    expect(needs('{{ PLATFORM.getGuild(data.id).name }}{{ PLATFORM.isTargetUser }}')).toMatchObject({
      guildById: true,
      guild: false,
      targetUser: true,
    });
    // PLATFORM used as a value (passed on, dynamic attribute): everything may be needed
    expect(needs('{% set p = PLATFORM %}{{ p.getQuote().id }}')).toMatchObject({
      guild: true,
      quote: true,
      sender: true,
    });
    expect(needs('{{ attribute(KOOK, data.m) }}')).toMatchObject({ guildById: true, channel: true });
  });
});
