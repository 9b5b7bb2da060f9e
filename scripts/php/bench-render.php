<?php
// Benchmark baseline for `npm run bench:render`: PHP Twig 3.5 renders one template compiled once,
// in a loop, timed in-process by CPU time. Usage: php bench-render.php <template> <data.json> <seconds>
// Prints one JSON line: {"renders_per_sec": float (per CPU second), "renders_per_wall_sec": float,
// "renders": int, "compile_ms": float, "output": string}. compile_ms is the median of 21 compilations of the source to PHP code
// (tokenize, parse, compile: Twig's compileSource; loading the class adds eval on top).
declare(strict_types=1);

foreach (['Twig/autoload.php', '/usr/share/php/Twig/autoload.php'] as $autoload) {
    if (@include_once $autoload) {
        break;
    }
}
require __DIR__ . '/herald-platform.php';

[$script, $templatePath, $dataPath, $seconds] = $argv + [null, null, null, '3'];
$source = file_get_contents($templatePath);
$data = json_decode(file_get_contents($dataPath), true, 512, JSON_THROW_ON_ERROR);

$twig = new \Twig\Environment(new \Twig\Loader\ArrayLoader(['template' => $source]), [
    'autoescape' => false,
    'strict_variables' => false,
    'cache' => false,
]);
$twig->getExtension(\Twig\Extension\CoreExtension::class)->setTimezone('UTC');
\Herald\Conformance\install($twig, []);
$template = $twig->load('template'); // compiled once

$compiles = [];
for ($i = 0; $i < 21; $i++) {
    $t0 = hrtime(true);
    $twig->compileSource(new \Twig\Source($source, 'template'));
    $compiles[] = (hrtime(true) - $t0) / 1e6;
}
sort($compiles);
$compileMs = $compiles[10];

$output = $template->render(['data' => $data]);
for ($i = 0; $i < 200; $i++) {
    $template->render(['data' => $data]); // warm-up
}
// CPU time of this process (user + system), not wall time: on a shared machine the wall clock
// also counts the time other processes hold the cores, the CPU time much less so.
function cpuSeconds(): float
{
    $u = getrusage();
    return $u['ru_utime.tv_sec'] + $u['ru_utime.tv_usec'] / 1e6 + $u['ru_stime.tv_sec'] + $u['ru_stime.tv_usec'] / 1e6;
}

$budget = (float) $seconds;
$renders = 0;
$start = cpuSeconds();
$wallStart = hrtime(true);
do {
    for ($i = 0; $i < 100; $i++) {
        $template->render(['data' => $data]);
    }
    $renders += 100;
    $elapsed = cpuSeconds() - $start;
} while ($elapsed < $budget);
$wall = (hrtime(true) - $wallStart) / 1e9;

echo json_encode(['renders_per_sec' => $renders / $elapsed, 'renders_per_wall_sec' => $renders / $wall, 'renders' => $renders, 'compile_ms' => $compileMs, 'output' => $output], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\n";
