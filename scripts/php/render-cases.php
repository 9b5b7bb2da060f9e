<?php
// Regenerates the Twig conformance corpus's reference outputs with real PHP Twig.
//
//   npm run conformance:regen      (= php scripts/php/render-cases.php)
//
// Reads every test/render/conformance/cases/*.json (arrays of {name, template, data, platform?,
// variables?}; `variables`: top-level variables beside `data`, as a routed pipe's `_event`),
// renders each case with PHP Twig configured like the platform (see README in that folder) and
// writes test/render/conformance/expected/<same file name>.json as
// { "<case name>": {"output": "...", "warnings"?: [{"message", "line"}]} | {"error": true} }.
// PHP warnings and notices do not stop the render (PHP prints its output); they are recorded with
// the template line they came from, so Herald must raise the same ones.
// Deterministic: the same inputs always give byte-identical files.

declare(strict_types=1);

// Twig 3.5: $TWIG_AUTOLOAD if set, else Twig/autoload.php on the include path (Debian's php-twig
// package), else a Composer vendor/autoload.php at the repository root.
(static function (): void {
    $candidates = [getenv('TWIG_AUTOLOAD') ?: null, stream_resolve_include_path('Twig/autoload.php') ?: null, dirname(__DIR__, 2) . '/vendor/autoload.php'];
    foreach ($candidates as $candidate) {
        if ($candidate !== null && is_file($candidate)) {
            require $candidate;
            return;
        }
    }
    fwrite(STDERR, "Twig not found: install php-twig 3.5 or set TWIG_AUTOLOAD\n");
    exit(2);
})();
require __DIR__ . '/herald-platform.php';

use Twig\Environment;
use Twig\Extension\CoreExtension;
use Twig\Loader\ArrayLoader;
use Twig\TwigFilter;
use Twig\TwigFunction;

const TWIG_VERSION_PREFIX = '3.5.';

error_reporting(E_ALL);
ini_set('display_errors', 'stderr');
ini_set('precision', '14');
ini_set('serialize_precision', '-1');
date_default_timezone_set('UTC');
setlocale(LC_ALL, 'C');
mb_internal_encoding('UTF-8');

if (!str_starts_with(Environment::VERSION, TWIG_VERSION_PREFIX)) {
    fwrite(STDERR, 'Twig ' . TWIG_VERSION_PREFIX . 'x required, found ' . Environment::VERSION . "\n");
    exit(2);
}

/**
 * Warnings and notices raised while the current case renders: PHP prints the output anyway, and
 * so must Herald, collecting the same messages at the same template lines.
 * @var list<array{message: string, line: int}>|null
 */
$warnings = null;
/** The template being rendered, for mapping a warning's PHP line to its template line. */
$currentTemplate = null;
$deprecations = [];
$currentCase = null;
set_error_handler(static function (int $errno, string $message, string $file = '', int $line = 0) use (&$deprecations, &$currentCase, &$warnings, &$currentTemplate): bool {
    if ($errno === E_DEPRECATED || $errno === E_USER_DEPRECATED) {
        // Deprecations do not change the output; they are reported, not fatal.
        $deprecations[] = ($currentCase ?? '(no case)') . ': ' . $message;
        return true;
    }
    if ($warnings === null) {
        // outside a render (the script itself): a bug here, not a case's warning
        throw new \ErrorException($message, 0, $errno, $file, $line);
    }
    $warnings[] = ['message' => $message, 'line' => template_line($currentTemplate, $file, $line)];
    return true;
});

/**
 * The template line of the innermost compiled-template frame on the stack (the warning may come
 * from inside a Twig or PHP function the template called), through the template's debug info as
 * Twig's own error messages map it; 0 when none is found.
 */
function template_line(?\Twig\Template $template, string $file, int $line): int
{
    if ($template === null) {
        return 0;
    }
    $codeLine = null;
    if (str_contains($file, "eval()'d code")) {
        $codeLine = $line;
    } else {
        foreach (debug_backtrace(DEBUG_BACKTRACE_IGNORE_ARGS) as $frame) {
            if (str_contains($frame['file'] ?? '', "eval()'d code")) {
                $codeLine = $frame['line'];
                break;
            }
        }
    }
    if ($codeLine === null) {
        return 0;
    }
    $info = $template->getDebugInfo();
    krsort($info);
    foreach ($info as $php => $tpl) {
        if ($php <= $codeLine) {
            return $tpl;
        }
    }
    return 0;
}

$root = dirname(__DIR__, 2);
$casesDir = $root . '/test/render/conformance/cases';
$expectedDir = $root . '/test/render/conformance/expected';

$files = glob($casesDir . '/*.json');
sort($files, SORT_STRING);
if ($files === []) {
    fwrite(STDERR, "no case files in test/render/conformance/cases\n");
    exit(2);
}

/** conformance.test.ts's FIXED_NOW: 2024-01-15T12:00:00Z, a Monday. */
const FIXED_NOW = 1705320000;

/**
 * What twig_date_converter would make of $date if the clock read FIXED_NOW. PHP has no way to set
 * `new DateTime($text)`'s clock, so a date string is read with strtotime($text, FIXED_NOW), which
 * runs the same timelib steps (parse, fill the fields the text leaves out from "now" in the
 * default zone, apply the relative parts) with that "now"; the parsed fraction of a second and
 * zone are put back from date_parse(). Only sub-second relative units ("+500 ms") would differ:
 * cases do not use them. Anything else (DateTime, timestamps, an unparsable string) goes to Twig
 * unchanged, so Twig's own converter handles it, errors included.
 */
function fixed_clock(Environment $env, $date)
{
    $tz = $env->getExtension(CoreExtension::class)->getTimezone();
    if ($date === null || $date === 'now') {
        return (new \DateTime('@' . FIXED_NOW))->setTimezone($tz);
    }
    if (is_object($date) || is_array($date)) {
        return $date;
    }
    $text = (string) $date;
    if (trim($text) === '') {
        // new DateTime('') is "now"; strtotime('') answers false
        return (new \DateTime('@' . FIXED_NOW))->setTimezone($tz);
    }
    if (ctype_digit($text) || ($text !== '' && $text[0] === '-' && ctype_digit(substr($text, 1)))) {
        return $date;
    }
    $ts = strtotime($text, FIXED_NOW);
    if ($ts === false) {
        return $date;
    }
    $parsed = date_parse($text);
    $us = $parsed['fraction'] !== false ? (int) round($parsed['fraction'] * 1e6) : 0;
    $result = \DateTime::createFromFormat('U.u', sprintf('%d.%06d', $ts, $us));
    $zone = $tz;
    switch ($parsed['zone_type'] ?? 0) {
        case 1:
            $z = (int) $parsed['zone'];
            $zone = new \DateTimeZone(sprintf('%s%02d:%02d', $z < 0 ? '-' : '+', intdiv(abs($z), 3600), intdiv(abs($z) % 3600, 60)));
            break;
        case 2:
            $zone = new \DateTimeZone($parsed['tz_abbr']);
            break;
        case 3:
            $zone = new \DateTimeZone($parsed['tz_id']);
            break;
    }
    return $result->setTimezone($zone);
}

/** The date filter, date_modify filter and date function of Twig 3.5, on the fixed clock. */
function install_fixed_clock(Environment $twig): void
{
    $twig->addFilter(new TwigFilter('date', static function (Environment $env, $date, $format = null, $timezone = null) {
        return twig_date_format_filter($env, fixed_clock($env, $date), $format, $timezone);
    }, ['needs_environment' => true]));
    $twig->addFilter(new TwigFilter('date_modify', static function (Environment $env, $date, $modifier) {
        return twig_date_modify_filter($env, fixed_clock($env, $date), $modifier);
    }, ['needs_environment' => true]));
    $twig->addFunction(new TwigFunction('date', static function (Environment $env, $date = null, $timezone = null) {
        return twig_date_converter($env, fixed_clock($env, $date), $timezone);
    }, ['needs_environment' => true]));
}

function render_case(string $template, $data, array $platform, array $variables = []): array
{
    $loader = new ArrayLoader(['template' => $template]);
    $twig = new Environment($loader, [
        'autoescape' => false,
        'strict_variables' => false,
        'cache' => false,
        'debug' => false,
        'charset' => 'UTF-8',
    ]);
    $twig->getExtension(CoreExtension::class)->setTimezone('UTC');
    \Herald\Conformance\install($twig, $platform);
    install_fixed_clock($twig);
    mt_srand(0);
    global $warnings, $currentTemplate;
    try {
        $currentTemplate = $twig->load('template')->unwrap();
        $warnings = [];
        $output = $twig->render('template', ['data' => $data] + $variables);
    } catch (\Throwable $e) {
        return [['error' => true], get_class($e) . ': ' . $e->getMessage()];
    } finally {
        $found = $warnings ?? [];
        $warnings = null;
        $currentTemplate = null;
    }
    if (!mb_check_encoding($output, 'UTF-8')) {
        throw new \RuntimeException('output is not valid UTF-8; change the case');
    }
    return [$found === [] ? ['output' => $output] : ['output' => $output, 'warnings' => $found], null];
}

$seen = [];
$total = 0;
$errors = 0;
$expectedFiles = [];
foreach ($files as $file) {
    $base = basename($file);
    $raw = json_decode(file_get_contents($file), true, 512, JSON_THROW_ON_ERROR);
    if (!is_array($raw) || !array_is_list($raw)) {
        fwrite(STDERR, "$base: must be a JSON array of cases\n");
        exit(1);
    }
    $expected = [];
    foreach ($raw as $i => $case) {
        $name = $case['name'] ?? null;
        if (!is_string($name) || $name === '' || !is_string($case['template'] ?? null) || !array_key_exists('data', $case)) {
            fwrite(STDERR, "$base[$i]: needs string name, string template and data\n");
            exit(1);
        }
        if (isset($seen[$name])) {
            fwrite(STDERR, "$base: duplicate case name '$name' (also in {$seen[$name]})\n");
            exit(1);
        }
        $seen[$name] = $base;
        // The platform hands templates json_decode($body, true); round-trip the case's data the
        // same way, from the case file's own JSON text of that value.
        $dataJson = json_encode($case['data'], JSON_PRESERVE_ZERO_FRACTION | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR);
        $data = json_decode($dataJson, true, 512, JSON_THROW_ON_ERROR);
        $platform = $case['platform'] ?? [];
        if (!is_array($platform)) {
            fwrite(STDERR, "$base: case '$name': platform must be an object\n");
            exit(1);
        }
        $variables = $case['variables'] ?? [];
        if (!is_array($variables) || ($variables !== [] && array_is_list($variables)) || array_key_exists('data', $variables)) {
            fwrite(STDERR, "$base: case '$name': variables must be an object without 'data'\n");
            exit(1);
        }
        if ($variables !== []) {
            $variablesJson = json_encode($variables, JSON_PRESERVE_ZERO_FRACTION | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR);
            $variables = json_decode($variablesJson, true, 512, JSON_THROW_ON_ERROR);
        }
        $currentCase = $name;
        [$result, $why] = render_case($case['template'], $data, $platform, $variables);
        $currentCase = null;
        if ($why !== null) {
            $errors++;
            if (getenv('CONFORMANCE_VERBOSE')) {
                fwrite(STDERR, "  error  $name: $why\n");
            }
        }
        $expected[$name] = $result;
        $total++;
    }
    $json = json_encode($expected, JSON_PRETTY_PRINT | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR) . "\n";
    file_put_contents($expectedDir . '/' . $base, $json);
    $expectedFiles[$base] = true;
    printf("%-32s %4d cases\n", $base, count($raw));
}

// Remove expected files whose case file is gone.
foreach (glob($expectedDir . '/*.json') as $stale) {
    if (!isset($expectedFiles[basename($stale)])) {
        unlink($stale);
        echo 'removed stale ' . basename($stale) . "\n";
    }
}

printf("%d cases, %d expect an error\n", $total, $errors);
foreach ($deprecations as $d) {
    fwrite(STDERR, "deprecation: $d\n");
}
