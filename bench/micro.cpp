// Google Benchmark micro-benchmarks of the pieces bench/run times end to end:
// CRC-32C, did-you-mean, recipe load + validate, render of one recipe, DLLogger parse.
#include "metrics/crc32c.hpp"

#include <trainbench/catalog.hpp>
#include <trainbench/core.hpp>
#include <trainbench/metrics.hpp>
#include <trainbench/recipe.hpp>
#include <trainbench/render.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace trainbench;

const fs::path k_root = TRAINBENCH_SOURCE_DIR;

void crc32c_hardware(benchmark::State& state) {
    std::vector<char> data(static_cast<std::size_t>(state.range(0)), 'x');
    for (auto _ : state) {
        benchmark::DoNotOptimize(metrics::detail::crc32c(data.data(), data.size()));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
    state.SetLabel(metrics::detail::crc32c_hardware() ? "sse4.2" : "tables");
}
BENCHMARK(crc32c_hardware)->Arg(54)->Arg(1 << 20);

void crc32c_portable(benchmark::State& state) {
    std::vector<char> data(static_cast<std::size_t>(state.range(0)), 'x');
    for (auto _ : state) {
        benchmark::DoNotOptimize(metrics::detail::crc32c_portable(data.data(), data.size()));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(crc32c_portable)->Arg(54)->Arg(1 << 20);

void did_you_mean_field(benchmark::State& state) {
    const std::vector<std::string> fields = {
        "version",       "name",        "description", "extends",   "target", "model",     "framework", "nodes",
        "gpus_per_node", "parallelism", "batch",       "precision", "steps",  "data",      "metrics",   "slurm",
        "kubernetes",    "env",         "stages",      "expect",    "launch", "container", "checkpoint"};
    for (auto _ : state) {
        benchmark::DoNotOptimize(did_you_mean("paralelism", fields));
    }
}
BENCHMARK(did_you_mean_field);

const catalog::Catalog& shipped_catalog() {
    static const catalog::Catalog c = catalog::Catalog::load({k_root / "recipes"});
    return c;
}

void recipe_load_validate(benchmark::State& state) {
    const auto& cat = shipped_catalog();
    const fs::path file = k_root / "recipes/aws-p4d/gpt3-5b.yaml";
    for (auto _ : state) {
        benchmark::DoNotOptimize(recipe::load_valid_recipe(file, cat));
    }
}
BENCHMARK(recipe_load_validate)->Unit(benchmark::kMicrosecond);

void render_one_recipe(benchmark::State& state) {
    const auto& cat = shipped_catalog();
    const auto recipe = recipe::load_valid_recipe(k_root / "recipes/aws-p4d/gpt3-5b.yaml", cat);
    render::RenderOptions options;
    options.template_dirs = {k_root / "templates"};
    for (auto _ : state) {
        benchmark::DoNotOptimize(render::render(recipe, options));
    }
}
BENCHMARK(render_one_recipe)->Unit(benchmark::kMicrosecond);

// Parses a DLLogger file of `range(0)` step lines shaped like NeMo 1.x dllogger.json.
void dllogger_parse(benchmark::State& state) {
    const fs::path file = fs::temp_directory_path() / ("tb_micro_dllogger_" + std::to_string(state.range(0)) + ".json");
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        char line[512];
        for (std::int64_t step = 0; step < state.range(0); ++step) {
            const int n = std::snprintf(
                line, sizeof line,
                "DLLL {\"timestamp\": \"%.6f\", \"datetime\": \"2024-09-28 01:21:33.241469\", \"elapsedtime\": "
                "\"%.6f\", \"type\": \"LOG\", \"step\": %lld, \"data\": {\"reduced_train_loss\": %.17g, \"lr\": "
                "%.17g, \"global_step\": %lld.0, \"consumed_samples\": %lld.0, \"train_backward_timing in s\": "
                "%.17g, \"grad_norm\": %.17g, \"train_step_timing in s\": %.17g, \"epoch\": 0}}\n",
                1727486460.0 + 15.2 * static_cast<double>(step), 15.2 * static_cast<double>(step),
                static_cast<long long>(step), 11.0 - 1e-5 * static_cast<double>(step), 6e-5,
                static_cast<long long>(step), static_cast<long long>((step + 1) * 2048), 9.1, 1.01, 15.1);
            out.write(line, n);
        }
    }
    const auto bytes = static_cast<std::int64_t>(fs::file_size(file));
    metrics::ParseOptions options;
    options.format = "dllogger";
    for (auto _ : state) {
        benchmark::DoNotOptimize(metrics::parse_logs({file}, options));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * bytes);
    state.counters["lines/s"] =
        benchmark::Counter(static_cast<double>(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
    fs::remove(file);
}
BENCHMARK(dllogger_parse)->Arg(1)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
