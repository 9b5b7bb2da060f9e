<?php
// PHP-side emulation of Herald's template platform extensions (filters + PLATFORM/KOOK global),
// used only to produce the conformance corpus's reference outputs. The TypeScript engine in
// src/render/twig/ must mirror these semantics exactly; see test/render/conformance/README.md.

declare(strict_types=1);

namespace Herald\Conformance;

use Twig\Environment;
use Twig\TwigFilter;

/** Image used by image() when neither a usable url nor a default is given. */
const DEFAULT_FAILURE_IMAGE = 'https://img.kookapp.cn/assets/2022-08/herald-default-failure.png';

/**
 * The PLATFORM / KOOK global. Its data comes from a case's "platform" fixture:
 * {guild, channel, sender, targetUser, quote, joinedGuilds: {id: guild}, defaultImageUrl}.
 * Properties are private so that Twig's `PLATFORM.guild` resolves to getGuild() exactly as on
 * the platform (Twig tries method `guild`, then `getGuild`, `isGuild`, `hasGuild`).
 */
final class Platform
{
    private array $fixture;

    public function __construct(array $fixture)
    {
        $this->fixture = $fixture;
    }

    public function getGuild($guild_id = null)
    {
        if ($guild_id === null) {
            return $this->fixture['guild'] ?? null;
        }
        $joined = $this->fixture['joinedGuilds'] ?? [];
        if (!is_array($joined)) {
            return null;
        }
        $key = stringify($guild_id);
        return $joined[$key] ?? null;
    }

    public function getChannel()
    {
        return $this->fixture['channel'] ?? null;
    }

    public function getSender()
    {
        return $this->fixture['sender'] ?? null;
    }

    public function getTargetUser()
    {
        return $this->fixture['targetUser'] ?? null;
    }

    public function getQuote()
    {
        return $this->fixture['quote'] ?? null;
    }

    public function image($url, $defaultUrl = null)
    {
        // a card takes jpg, jpeg, gif and png (or an address with no extension): another image
        // would fail the card, so it gets the failure image as an unusable address does
        if (is_string($url) && (str_starts_with($url, 'http://') || str_starts_with($url, 'https://'))
            && preg_match('~^(?:[^?#/]*//[^/?#]*)?(?:[^?#]*/)?[^/?#]*?(?:\.([^./?#]*))?(?:[?#].*)?$~s', $url, $m)
            && (!isset($m[1]) || $m[1] === '' || in_array(strtolower($m[1]), ['jpg', 'jpeg', 'gif', 'png'], true))) {
            return $url;
        }
        if ($defaultUrl !== null && $defaultUrl !== '' && $defaultUrl !== false) {
            return $defaultUrl;
        }
        return $this->fixture['defaultImageUrl'] ?? DEFAULT_FAILURE_IMAGE;
    }
}

/**
 * PHP's (string) cast without the "Array to string conversion" warning:
 * null/false -> "", true -> "1", int -> decimal, float -> PHP 8 float-to-string (precision ini,
 * 14 significant digits, e.g. 0.1+0.2 -> "0.3", 1e20 -> "1.0E+20", -0.0 -> "-0"),
 * array -> "Array", object -> __toString() (objects without it throw, as PHP does).
 */
function stringify($value): string
{
    if (is_array($value)) {
        return 'Array';
    }
    if ($value === null || $value === false) {
        return '';
    }
    return (string) $value;
}

function json_escape($value): string
{
    $json = json_encode(stringify($value), JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR);
    return substr($json, 1, -1);
}

function yaml_escape($value, $mode = 0): string
{
    $s = stringify($value);
    if ((int) $mode === 1) {
        // Inside a YAML single-quoted scalar: quote doubled; a run of k line breaks (LF, CRLF or
        // CR) is written as k + 1 LFs, which YAML line folding reads back as k.
        $s = str_replace("'", "''", $s);
        return preg_replace_callback('/(?:\r\n|\r|\n)+/', static function (array $m): string {
            return str_repeat("\n", preg_match_all('/\r\n|\r|\n/', $m[0]) + 1);
        }, $s);
    }
    // Inside a YAML double-quoted scalar: one line that parses back to exactly the input. YAML
    // 1.1's line breaks (U+0085, U+2028, U+2029) and what YAML does not allow raw (C0, DEL, C1,
    // U+FEFF, U+FFFE, U+FFFF) are escaped.
    return preg_replace_callback('/[\x00-\x1F\x7F"\\\\]|[\x{80}-\x{9F}\x{2028}\x{2029}\x{FEFF}\x{FFFE}\x{FFFF}]/u', static function (array $m): string {
        switch ($m[0]) {
            case '\\':
                return '\\\\';
            case '"':
                return '\\"';
            case "\n":
                return '\\n';
            case "\r":
                return '\\r';
            case "\t":
                return '\\t';
            case "\u{85}":
                return '\\N';
            case "\u{2028}":
                return '\\L';
            case "\u{2029}":
                return '\\P';
        }
        $c = mb_ord($m[0], 'UTF-8');
        return $c < 0x100 ? sprintf('\\x%02X', $c) : sprintf('\\u%04X', $c);
    }, $s);
}

function kmd_escape($value)
{
    return $value;
}

/** Adds Herald's filters and globals to a Twig environment. */
function install(Environment $twig, array $platformFixture): void
{
    $twig->addFilter(new TwigFilter('json_escape', __NAMESPACE__ . '\\json_escape'));
    $twig->addFilter(new TwigFilter('yaml_escape', __NAMESPACE__ . '\\yaml_escape'));
    $twig->addFilter(new TwigFilter('kmd_escape', __NAMESPACE__ . '\\kmd_escape'));
    $platform = new Platform($platformFixture);
    $twig->addGlobal('PLATFORM', $platform);
    $twig->addGlobal('KOOK', $platform);
}
