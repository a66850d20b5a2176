// The validate stage's results: DCGM diagnostics per node, nccl-tests bus
// bandwidth per run and per node pair against a threshold, bad nodes named.
#include <trainbench/analysis.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace trainbench::analysis {

namespace {

bool starts_with(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

DcgmNodeResult parse_dcgm_diag(std::string_view text) {
    DcgmNodeResult r;
    std::size_t pos = 0;
    bool failed = false;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        std::string l(trim(line));
        // "| PCIe                      | Pass - All                        |"
        if (l.size() < 3 || l.front() != '|' || l.back() != '|' || starts_with(l, "|-") || starts_with(l, "|="))
            continue;
        std::string inner = l.substr(1, l.size() - 2);
        std::size_t bar = inner.find('|');
        if (bar == std::string::npos) continue;
        std::string name(trim(inner.substr(0, bar)));
        std::string cell(trim(inner.substr(bar + 1)));
        if (name == "Diagnostic" && cell == "Result") continue;  // header
        std::string result;
        for (const char* word : {"Pass", "Fail", "Skip", "Warn"})
            if (starts_with(cell, word)) result = word;
        if (result.empty()) {
            // A continuation row (a warning message under a failed check).
            if (!r.checks.empty() && !cell.empty())
                r.checks.back().detail += (r.checks.back().detail.empty() ? "" : " ") + cell;
            continue;
        }
        std::string detail(trim(cell.substr(result.size())));
        if (starts_with(detail, "-")) detail = std::string(trim(std::string_view(detail).substr(1)));
        r.checks.push_back({name, result, detail});
        if (result == "Fail") failed = true;
    }
    r.parsed = !r.checks.empty();
    r.passed = r.parsed && !failed;
    return r;
}

NcclRunCheck check_nccl_run(const metrics::NcclResult& result, double threshold_gbs) {
    NcclRunCheck c;
    c.test = result.operation;
    c.rows = result.rows;
    c.avg_busbw = result.avg_busbw;
    bool wrong = false;
    for (const metrics::NcclRow& row : result.rows) {
        if (row.size_bytes >= c.largest_size) {
            c.largest_size = row.size_bytes;
            c.largest_busbw = row.oop_busbw;
        }
        if (row.oop_wrong > 0 || row.ip_wrong > 0) wrong = true;
    }
    if (result.rows.empty()) {
        c.problem = "no result rows (the run failed or was cut short)";
    } else if (wrong) {
        c.problem = "nccl-tests counted wrong results";
    } else if (result.out_of_bounds && *result.out_of_bounds > 0) {
        c.problem = fmt::format("{} out-of-bounds values", *result.out_of_bounds);
    } else if (threshold_gbs > 0 && c.largest_busbw && *c.largest_busbw < threshold_gbs) {
        c.problem = fmt::format("bus bandwidth {:.2f} GB/s at {} bytes is below the threshold of {} GB/s",
                                *c.largest_busbw, c.largest_size, threshold_gbs);
    }
    c.passed = c.problem.empty();
    return c;
}

namespace {

// "nccl-<rest>" or "<test>_perf-<rest>": the test's name into c.test (when the log did not
// say) and what follows into `rest`; false for a file that is no nccl-tests run.
bool nccl_run_name(const std::string& stem, NcclRunCheck& c, std::string& rest) {
    std::string prefix = stem.substr(0, stem.find('-'));
    if (prefix != "nccl" && !starts_with(stem, "all_") && stem.find("_perf") == std::string::npos) return false;
    std::size_t perf = stem.find("_perf-");
    if (starts_with(stem, "nccl-")) {
        rest = stem.substr(5);
        if (c.test.empty()) c.test = "all_reduce_perf";
    } else if (perf != std::string::npos) {
        if (c.test.empty()) c.test = stem.substr(0, perf + 5);
        rest = stem.substr(perf + 6);
    } else {
        return false;
    }
    return true;
}

// The pair: split "<a>-<b>" at the dash that makes two known node names, else the middle dash.
std::size_t pair_split(const std::string& rest, const std::set<std::string>& known_nodes) {
    for (std::size_t i = rest.find('-'); i != std::string::npos; i = rest.find('-', i + 1))
        if (known_nodes.count(rest.substr(0, i)) && known_nodes.count(rest.substr(i + 1))) return i;
    std::vector<std::size_t> dashes;
    for (std::size_t i = rest.find('-'); i != std::string::npos; i = rest.find('-', i + 1)) dashes.push_back(i);
    return dashes.empty() ? std::string::npos : dashes[dashes.size() / 2];
}

// One nccl-tests log: the run over all nodes goes first in v.runs, a pair's run to `pairs`.
void add_nccl_run(ClusterValidation& v, std::vector<NcclRunCheck>& pairs, const fs::path& f,
                  const std::set<std::string>& known_nodes, double threshold_gbs) {
    metrics::LogData log;
    try {
        metrics::ParseOptions po;
        po.format = "nccl-tests";
        log = metrics::parse_logs({f}, po);
    } catch (const Error&) {
        return;
    }
    NcclRunCheck c = check_nccl_run(log.nccl ? *log.nccl : metrics::NcclResult{}, threshold_gbs);
    c.file = f.string();
    std::string rest;
    if (!nccl_run_name(f.stem().string(), c, rest)) return;
    if (rest == "all") {
        c.all_nodes = true;
        v.runs.insert(v.runs.begin(), std::move(c));
        return;
    }
    std::size_t split = pair_split(rest, known_nodes);
    if (split == std::string::npos) return;
    c.nodes = {rest.substr(0, split), rest.substr(split + 1)};
    pairs.push_back(std::move(c));
}

// Bad nodes: DCGM failures; nodes whose every pair failed (when it was tested
// with at least two partners, or its only partner also failed elsewhere).
void judge_nodes(ClusterValidation& v, std::vector<NcclRunCheck>& pairs, const std::set<std::string>& known_nodes) {
    std::set<std::string> bad, suspect;
    for (const DcgmNodeResult& d : v.dcgm)
        if (!d.passed) bad.insert(d.node);
    std::map<std::string, std::pair<int, int>> tally;  // node -> {failed, passed}
    for (const NcclRunCheck& c : pairs)
        for (const std::string& n : c.nodes) (c.passed ? tally[n].second : tally[n].first) += 1;
    for (const auto& [node, t] : tally) {
        if (known_nodes.empty() || !known_nodes.count(node))
            if (std::find(v.nodes.begin(), v.nodes.end(), node) == v.nodes.end()) v.nodes.push_back(node);
        if (t.first > 0 && t.second == 0)
            bad.insert(node);
        else if (t.first > 0)
            suspect.insert(node);
    }
    for (NcclRunCheck& c : pairs) v.runs.push_back(std::move(c));
    v.bad_nodes.assign(bad.begin(), bad.end());
    for (const std::string& s : suspect)
        if (!bad.count(s)) v.suspect_nodes.push_back(s);
}

}  // namespace

ClusterValidation analyse_cluster_validation(const fs::path& log_dir, double threshold_gbs) {
    ClusterValidation v;
    v.threshold_gbs = threshold_gbs;
    std::error_code ec;
    if (!fs::is_directory(log_dir, ec)) return v;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(log_dir, ec))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::set<std::string> known_nodes;
    if (fs::exists(log_dir / "nodes.txt", ec)) {
        std::istringstream in(read_text(log_dir / "nodes.txt"));
        for (std::string line; std::getline(in, line);)
            if (!trim(line).empty()) v.nodes.emplace_back(trim(line));
        known_nodes.insert(v.nodes.begin(), v.nodes.end());
    }
    std::vector<NcclRunCheck> pairs;
    for (const fs::path& f : files) {
        std::string name = f.filename().string();
        if (f.extension() != ".txt" || name == "nodes.txt") continue;
        std::string stem = f.stem().string();
        if (starts_with(stem, "dcgm-")) {
            DcgmNodeResult d = parse_dcgm_diag(read_text(f));
            d.node = stem.substr(5);
            d.file = f.string();
            v.dcgm.push_back(std::move(d));
            continue;
        }
        // nccl-all.txt, nccl-<a>-<b>.txt, <test>-all.txt, <test>-<a>-<b>.txt
        add_nccl_run(v, pairs, f, known_nodes, threshold_gbs);
    }
    judge_nodes(v, pairs, known_nodes);
    v.passed = !v.empty() &&
               std::all_of(v.runs.begin(), v.runs.end(), [](const NcclRunCheck& c) { return c.passed; }) &&
               std::all_of(v.dcgm.begin(), v.dcgm.end(), [](const DcgmNodeResult& d) { return d.passed; });
    return v;
}

}  // namespace trainbench::analysis
