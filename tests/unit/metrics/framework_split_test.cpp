// Megatron-Bridge and TorchTitan logs parsed by several threads give exactly the sequential
// result: no Step Time line is cut from its iteration line (the Bridge's cuts follow an
// iteration line), and the step time TorchTitan's timestamps give across a cut is added back.
#include "metrics/split.hpp"
#include "test_support.hpp"

#include <fmt/format.h>

namespace fs = std::filesystem;
using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

namespace {

std::string bridge_log(int n) {
    std::string s = "[NeMo I 2026-08-22 10:00:00 setup:312] Setting up\n";
    for (int it = 1; it <= n; ++it) {
        const double t = 2.0 + (it % 13) * 0.01;
        s += fmt::format("Step Time : {:.2f}s GPU utilization: {:.1f}MODEL_TFLOP/s/GPU\n", t, 1000.0 / t);
        if (it % 50 == 0) s += "some other rank's output\n";
        s += fmt::format(
            " [2026-08-22 10:00:05] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed time per iteration "
            "(ms): {:.1f} | learning rate: 1.000000E-05 | global batch size:   256 | lm loss: {:.6E} | loss scale: "
            "1.0 |\n",
            it, n, it * 256, t * 1000, 9.0 - it * 1e-3);
    }
    return s;
}

// `ranks` > 1: every rank prints each step line (rank r's 7·r ms after rank 0's).
std::string titan_log(int n, int ranks = 1) {
    std::string s;
    for (int step = 1; step <= n; ++step) {
        for (int rank = 0; rank < ranks; ++rank) {
            const long ms = step * 1500L + (step % 7) * 3 + rank * 7;
            s += fmt::format(
                "[rank{}]:[titan] 2026-08-22 {:02}:{:02}:{:02},{:03} - root - INFO - \x1b[31mstep: {:2}  \x1b[32mloss: "
                "{:8.5f}  memory: 66.91GiB(37.51%)  \x1b[34mtps: 10,{:03}  \x1b[36mtflops: 314.70  \x1b[35mmfu: "
                "31.82%\x1b[39m\n",
                rank, 10 + ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000, step, 9.0 - step * 1e-3,
                (step + rank) % 1000);
        }
        if (step % 40 == 0) s += "[rank0]:[titan] 2026-08-22 10:00:00,000 - root - INFO - Saving a checkpoint\n";
    }
    return s;
}

using SplitFn = bool (*)(const fs::path&, std::string_view, const ParseOptions&, LogData&, const detail::SplitPolicy&);
using FileFn = void (*)(const fs::path&, std::string_view, const ParseOptions&, LogData&, const detail::SplitPolicy&);

void expect_split_equals_sequential(const std::string& text, SplitFn split, FileFn file_fn) {
    TempDir dir;
    const fs::path file = dir.path() / "train.log";
    write_all(file, text);
    LogData seq;
    ParseOptions one;
    one.threads = 1;
    file_fn(file, "log", one, seq, {});
    ASSERT_GT(seq.stats.records, 1000u);
    for (unsigned threads : {2u, 3u, 4u}) {
        for (std::uint64_t part : {std::uint64_t{4096}, std::uint64_t{50000}}) {
            LogData par;
            ParseOptions o;
            o.threads = threads;
            ASSERT_TRUE(split(file, "log", o, par, detail::SplitPolicy{part, part})) << threads << " threads";
            EXPECT_EQ(parse_fingerprint(par), parse_fingerprint(seq))
                << threads << " threads, parts of " << part << " bytes";
        }
    }
}

}  // namespace

TEST(FrameworkSplit, MegatronBridgeGivesTheSequentialResult) {
    expect_split_equals_sequential(bridge_log(3000), detail::parse_megatron_bridge_split,
                                   detail::parse_megatron_bridge_file);
}

TEST(FrameworkSplit, TorchTitanGivesTheSequentialResultStepTimesAcrossCutsIncluded) {
    expect_split_equals_sequential(titan_log(4000), detail::parse_torchtitan_split, detail::parse_torchtitan_file);
}

TEST(FrameworkSplit, TorchTitanEveryRankLoggingGivesTheSequentialResult) {
    // (cuts fall between two steps' lines, never among the ranks' copies of one)
    expect_split_equals_sequential(titan_log(2000, 4), detail::parse_torchtitan_split, detail::parse_torchtitan_file);
}
