// Regression verdicts: a run's per-step step times against its baseline's,
// Hodges-Lehmann shift with the Mann-Whitney (distribution-free) confidence
// interval. Deterministic: no resampling, no seed.
#include <trainbench/results.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace trainbench::results {

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// z with P(|Z| > z) = 1 - confidence, by bisection on erfc.
double two_sided_z(double confidence) {
    const double alpha = 1 - confidence;
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; ++i) {
        const double mid = (lo + hi) / 2;
        if (std::erfc(mid / std::sqrt(2.0)) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

}  // namespace

std::string_view to_string(Verdict v) {
    switch (v) {
        case Verdict::faster:
            return "faster";
        case Verdict::slower:
            return "slower";
        case Verdict::no_change:
            return "no change beyond noise";
    }
    return "?";
}

Comparison compare_steps(const std::vector<double>& baseline, const std::vector<double>& run, double threshold,
                         double confidence) {
    if (baseline.size() < 3 || run.size() < 3)
        throw InputError(fmt::format("too few steps to compare: the baseline has {} in its window, the run {}",
                                     baseline.size(), run.size()),
                         "at least 3 steps each; widen the window (--window) when reporting");
    if (!(confidence > 0 && confidence < 1)) throw UsageError("the confidence must lie between 0 and 1");
    Comparison c;
    c.baseline_count = baseline.size();
    c.run_count = run.size();
    c.baseline_median = median(baseline);
    c.run_median = median(run);
    c.threshold = threshold;
    c.confidence = confidence;

    std::vector<double> diffs;
    diffs.reserve(baseline.size() * run.size());
    for (double r : run)
        for (double b : baseline) diffs.push_back(r - b);
    std::sort(diffs.begin(), diffs.end());
    c.shift_s = median(diffs);
    const double n = static_cast<double>(baseline.size()), m = static_cast<double>(run.size());
    const double z = two_sided_z(confidence);
    const double k = std::floor(n * m / 2 - z * std::sqrt(n * m * (n + m + 1) / 12));
    const std::size_t lower = static_cast<std::size_t>(std::max(1.0, k));  // 1-based rank
    c.ci_low_s = diffs[lower - 1];
    c.ci_high_s = diffs[diffs.size() - lower];

    const double base = c.baseline_median > 0 ? c.baseline_median : 1;
    c.relative = c.shift_s / base;
    c.relative_low = c.ci_low_s / base;
    c.relative_high = c.ci_high_s / base;
    if (c.relative_low > 0 && c.relative > threshold)
        c.verdict = Verdict::slower;
    else if (c.relative_high < 0 && c.relative < -threshold)
        c.verdict = Verdict::faster;
    return c;
}

Result find_baseline(Store& store, const Result& run, const std::string& baseline) {
    const std::string tag = baseline == "last-good" ? "good" : baseline;
    std::vector<Result> earlier;
    for (Result& r : store.history({run.recipe_name, run.target, ""}))
        if (r.run_id != run.run_id &&
            (r.ran_at < run.ran_at || (r.ran_at == run.ran_at && r.recorded_at < run.recorded_at)))
            earlier.push_back(std::move(r));
    for (auto it = earlier.rbegin(); it != earlier.rend(); ++it)
        if (std::find(it->tags.begin(), it->tags.end(), tag) != it->tags.end()) return *it;
    if (baseline == "last-good")
        throw UsageError(fmt::format("no earlier run of '{}' on '{}' is tagged good", run.recipe_name, run.target),
                         "tag one with 'trainbench tag RUN good', or give --baseline RUN");
    Result b;
    try {
        b = store.find_run(baseline);
    } catch (const UsageError& e) {
        throw UsageError(fmt::format("no earlier run of '{}' on '{}' is tagged '{}', and {}", run.recipe_name,
                                     run.target, baseline, e.what()),
                         "give --baseline last-good, a tag, or a recorded run");
    }
    if (b.run_id == run.run_id)
        throw UsageError(fmt::format("the baseline '{}' is the run itself", baseline), "give another run or a tag");
    return b;
}

}  // namespace trainbench::results
