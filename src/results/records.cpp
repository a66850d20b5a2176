// The results as JSON records: the history (what `history --json` prints) and the
// regression verdict with the two results it compares. report renders both
// (report::history_document, report::regression_document).
#include <trainbench/results.hpp>

namespace trainbench::results {

namespace {

nlohmann::ordered_json without_steps(const Result& r) {
    nlohmann::ordered_json j = r.to_json();
    j.erase("window_steps");
    return j;
}

}  // namespace

nlohmann::ordered_json history_json(const std::vector<Result>& results) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const Result& r : results) arr.push_back(r.to_json());
    return {{"format", "trainbench-history"}, {"results", arr}};
}

nlohmann::ordered_json regression_json(const Regression& g) {
    const Comparison& c = g.comparison;
    return {{"run", g.run.run_id},
            {"baseline", g.baseline.run_id},
            {"method", "hodges-lehmann shift, mann-whitney interval"},
            {"run_steps", c.run_count},
            {"baseline_steps", c.baseline_count},
            {"run_median_s", c.run_median},
            {"baseline_median_s", c.baseline_median},
            {"shift_s", c.shift_s},
            {"ci_low_s", c.ci_low_s},
            {"ci_high_s", c.ci_high_s},
            {"relative", c.relative},
            {"relative_low", c.relative_low},
            {"relative_high", c.relative_high},
            {"confidence", c.confidence},
            {"threshold", c.threshold},
            {"verdict", c.verdict == Verdict::no_change ? "no-change" : std::string(to_string(c.verdict))}};
}

nlohmann::ordered_json regression_record(const Regression& g) {
    return {{"run", without_steps(g.run)},
            {"baseline", without_steps(g.baseline)},
            {"comparison", regression_json(g)},
            {"verdict_text", std::string(to_string(g.comparison.verdict))}};
}

}  // namespace trainbench::results
