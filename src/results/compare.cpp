// Regression verdicts: a run's per-step step times against its baseline's,
// Hodges-Lehmann shift with the Mann-Whitney (distribution-free) confidence
// interval. Deterministic: no resampling, no seed.
#include <trainbench/results.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

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

// Order statistics of the m*n pairwise differences run[i] - base[j], without storing them:
// memory O(m + n), time O((m + n) log(m + n)) per statistic. The values are the very doubles the
// sorted list of differences holds (each difference is computed as r - b, as that list was), so
// the shift and the interval are bit for bit what sorting all of them gave.
class PairwiseDifferences {
public:
    PairwiseDifferences(std::vector<double> run, std::vector<double> base)
        : m_run(std::move(run)), m_base(std::move(base)) {
        std::sort(m_run.begin(), m_run.end());
        std::sort(m_base.begin(), m_base.end());
    }

    [[nodiscard]] std::uint64_t size() const { return std::uint64_t{m_run.size()} * m_base.size(); }

    // The k-th smallest difference (0-based, k < size()): the smallest double t with at least k + 1
    // differences <= t, found by bisection over the doubles in order (their 64-bit order keys).
    [[nodiscard]] double nth(std::uint64_t k) const {
        std::uint64_t lo = key(m_run.front() - m_base.back()), hi = key(m_run.back() - m_base.front());
        while (lo < hi) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            if (count_at_most(value(mid)) > k)
                hi = mid;
            else
                lo = mid + 1;
        }
        return value(lo) + 0.0;  // (the key below +0.0 is -0.0: a zero difference is +0.0, as r - b gives it)
    }

private:
    // How many differences are <= t. Subtraction rounds monotonically, so r - b grows with r and
    // shrinks with b: for ascending r, the first b with r - b <= t only moves right.
    [[nodiscard]] std::uint64_t count_at_most(double t) const {
        std::uint64_t count = 0;
        std::size_t j = 0;
        for (double r : m_run) {
            while (j < m_base.size() && r - m_base[j] > t) ++j;
            count += m_base.size() - j;
        }
        return count;
    }

    // A double as an unsigned key of the same order (-0.0 as 0.0; the inputs are finite).
    static std::uint64_t key(double d) {
        const auto u = std::bit_cast<std::uint64_t>(d + 0.0);
        return (u >> 63) != 0 ? ~u : u | (std::uint64_t{1} << 63);
    }
    static double value(std::uint64_t k) {
        return std::bit_cast<double>((k >> 63) != 0 ? k & ~(std::uint64_t{1} << 63) : ~k);
    }

    std::vector<double> m_run, m_base;
};

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

    for (const std::vector<double>* side : {&baseline, &run})
        for (double v : *side)
            if (!std::isfinite(v))
                throw InputError(fmt::format("a recorded step time is {}, not a finite number", v),
                                 "record the run again with a current trainbench");
    const PairwiseDifferences diffs(run, baseline);
    const std::uint64_t count = diffs.size();
    c.shift_s = count % 2 == 1 ? diffs.nth(count / 2) : (diffs.nth(count / 2 - 1) + diffs.nth(count / 2)) / 2;
    const double n = static_cast<double>(baseline.size()), m = static_cast<double>(run.size());
    const double z = two_sided_z(confidence);
    const double k = std::floor(n * m / 2 - z * std::sqrt(n * m * (n + m + 1) / 12));
    const auto lower = static_cast<std::uint64_t>(std::max(1.0, k));  // 1-based rank
    c.ci_low_s = diffs.nth(lower - 1);
    c.ci_high_s = diffs.nth(count - lower);

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
