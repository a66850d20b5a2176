// The validate stage's analysis: DCGM diag tables, nccl-tests runs per pair
// against the threshold, bad nodes named; on fixtures and the real samples.
#include <trainbench/analysis.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <unistd.h>

namespace trainbench::analysis {
namespace {

namespace fs = std::filesystem;

const char* k_dcgm_pass = R"(Successfully ran diagnostic for group.
+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
|-----  Deployment  --------+------------------------------------------------|
| Denylist                  | Pass                                           |
| NVML Library              | Pass                                           |
+-----  Integration  -------+------------------------------------------------+
| PCIe                      | Pass - All                                     |
+-----  Hardware  ----------+------------------------------------------------+
| GPU Memory                | Pass - All                                     |
| Targeted Stress           | Skip - All                                     |
+---------------------------+------------------------------------------------+
)";

const char* k_dcgm_fail = R"(+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
| PCIe                      | Pass - All                                     |
| GPU Memory                | Fail - GPU: 3                                  |
| Warning                   | GPU 3 DBE errors detected                      |
+---------------------------+------------------------------------------------+
)";

std::string nccl_output(double busbw_8g) {
    std::string out =
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#\n#                                                              out-of-place                       "
        "in-place\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
        "#wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
        "(GB/s)\n";
    out +=
        "           8             2     float     sum      -1    35.10    0.00    0.00      0    34.90    0.00    0.00 "
        "     0\n";
    out +=
        "  1073741824     268435456     float     sum      -1   6000.0  178.96  335.55      0   6001.0  178.93  335.49 "
        "     0\n";
    out += fmt::format(
        "  8589934592    2147483648     float     sum      -1    47535  180.71  {:.2f}      0    47743  179.92  {:.2f} "
        "     0\n",
        busbw_8g, busbw_8g);
    out += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 120.5\n#\n";
    return out;
}

class Dir {
public:
    Dir()
        : m_path(fs::temp_directory_path() /
                 ("tb-cv-test-" + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}() % 100000))) {
        fs::create_directories(m_path);
    }
    ~Dir() { fs::remove_all(m_path); }
    void write(const std::string& name, const std::string& text) const { std::ofstream(m_path / name) << text; }
    const fs::path& path() const { return m_path; }

private:
    fs::path m_path;
};

TEST(ClusterValidation, ADcgmDiagTableIsParsedIntoChecks) {
    DcgmNodeResult ok = parse_dcgm_diag(k_dcgm_pass);
    EXPECT_TRUE(ok.parsed);
    EXPECT_TRUE(ok.passed);
    ASSERT_EQ(ok.checks.size(), 5u);
    EXPECT_EQ(ok.checks[2].name, "PCIe");
    EXPECT_EQ(ok.checks[2].detail, "All");
    EXPECT_EQ(ok.checks[4].result, "Skip");
    DcgmNodeResult bad = parse_dcgm_diag(k_dcgm_fail);
    EXPECT_FALSE(bad.passed);
    ASSERT_EQ(bad.checks.size(), 2u);
    EXPECT_EQ(bad.checks[1].detail, "GPU: 3 GPU 3 DBE errors detected");
    EXPECT_FALSE(parse_dcgm_diag("Error: unable to connect to host engine\n").parsed);
}

TEST(ClusterValidation, PairsBelowTheThresholdNameTheNodeInEveryFailingPair) {
    Dir d;
    d.write("nodes.txt", "node-a\nnode-b\nnode-c\nnode-d\n");
    d.write("nccl-all.txt", nccl_output(338.8));
    // Round 0: (a,b) (c,d); round 1: (b,c) (d,a). Node c is slow: both its pairs fail.
    d.write("nccl-node-a-node-b.txt", nccl_output(338.8));
    d.write("nccl-node-c-node-d.txt", nccl_output(90.1));
    d.write("nccl-node-b-node-c.txt", nccl_output(91.0));
    d.write("nccl-node-d-node-a.txt", nccl_output(337.0));
    d.write("dcgm-node-a.txt", k_dcgm_pass);
    d.write("dcgm-node-b.txt", k_dcgm_fail);
    ClusterValidation v = analyse_cluster_validation(d.path(), 180);
    EXPECT_FALSE(v.passed);
    ASSERT_EQ(v.runs.size(), 5u);
    EXPECT_TRUE(v.runs[0].all_nodes);
    EXPECT_TRUE(v.runs[0].passed);
    EXPECT_EQ(v.runs[0].largest_size, 8589934592u);
    EXPECT_DOUBLE_EQ(*v.runs[0].largest_busbw, 338.8);
    EXPECT_EQ(v.bad_nodes, (std::vector<std::string>{"node-b", "node-c"}));  // b: DCGM, c: both pairs
    EXPECT_EQ(v.suspect_nodes, (std::vector<std::string>{"node-d"}));
}

TEST(ClusterValidation, AllPassingRunsPass) {
    Dir d;
    d.write("nccl-n1-n2.txt", nccl_output(200));
    ClusterValidation v = analyse_cluster_validation(d.path(), 180);
    EXPECT_TRUE(v.passed);
    ASSERT_EQ(v.runs.size(), 1u);
    EXPECT_EQ(v.runs[0].nodes, (std::vector<std::string>{"n1", "n2"}));
    EXPECT_TRUE(analyse_cluster_validation(d.path() / "missing", 180).empty());
}

TEST(ClusterValidation, AnEmptyOrCutOutputFails) {
    Dir d;
    d.write("nccl-n1-n2.txt", "srun: error: node n2 unreachable\n");
    ClusterValidation v = analyse_cluster_validation(d.path(), 180);
    ASSERT_EQ(v.runs.size(), 1u);
    EXPECT_FALSE(v.runs[0].passed);
    EXPECT_NE(v.runs[0].problem.find("no result rows"), std::string::npos);
    EXPECT_FALSE(v.passed);
}

TEST(ClusterValidation, TheRealA3MegaSamplePassesItsThreshold) {
    fs::path sample = fs::path(TRAINBENCH_SHARED_DIR) / "samples" / "create-a3mega-ztan-fork_ztan-NCCL-test-result";
    if (!fs::exists(sample)) GTEST_SKIP() << "no " << sample;
    Dir d;
    fs::copy_file(sample, d.path() / "nccl-all.txt");
    ClusterValidation v = analyse_cluster_validation(d.path(), 180);
    ASSERT_EQ(v.runs.size(), 1u);
    EXPECT_EQ(v.runs[0].rows.size(), 31u);
    EXPECT_EQ(v.runs[0].largest_size, 8589934592u);
    EXPECT_DOUBLE_EQ(*v.runs[0].largest_busbw, 338.82);
    EXPECT_TRUE(v.passed);
    EXPECT_FALSE(analyse_cluster_validation(d.path(), 400).passed);
}

}  // namespace
}  // namespace trainbench::analysis
