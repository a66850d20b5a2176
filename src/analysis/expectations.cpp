// The figures a recipe's `expect:` block can name, and their verdicts against a summary.
#include <trainbench/analysis.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainbench::analysis {

const std::vector<std::string>& expectation_figures() {
    static const std::vector<std::string> names = {
        "step_time_s",          "step_time_median_s", "step_time_min_s",    "step_time_max_s",
        "step_time_p10_s",      "step_time_p90_s",    "step_time_stddev_s", "tokens_per_s",
        "tokens_per_s_per_gpu", "samples_per_s",      "tflops_per_gpu",     "mfu",
        "days_to_train",        "final_loss",         "mfu_measured",
    };
    return names;
}

std::optional<double> RunSummary::figure(std::string_view name) const {
    if (name == "step_time_s") return stats.mean;
    if (name == "step_time_median_s") return stats.median;
    if (name == "step_time_min_s") return stats.min;
    if (name == "step_time_max_s") return stats.max;
    if (name == "step_time_p10_s") return stats.p10;
    if (name == "step_time_p90_s") return stats.p90;
    if (name == "step_time_stddev_s") return stats.stddev;
    if (name == "tokens_per_s") return derived.tokens_per_s;
    if (name == "tokens_per_s_per_gpu") return derived.tokens_per_s_per_gpu;
    if (name == "samples_per_s") return derived.samples_per_s;
    if (name == "tflops_per_gpu") return derived.tflops_per_gpu;
    if (name == "mfu") return derived.mfu;
    if (name == "mfu_measured") return derived.mfu_measured;
    if (name == "days_to_train") return derived.days_to_train;
    if (name == "final_loss") {
        if (loss.empty()) return std::nullopt;
        return loss.back().value;
    }
    return std::nullopt;
}

bool RunSummary::expectations_passed() const {
    return std::all_of(expectations.begin(), expectations.end(), [](const ExpectationResult& e) { return e.passed; });
}

namespace {

// An expectation's bounds and how they read: "25.1 ± 5% [23.845, 26.355]", ">= 0.35".
struct Bounds {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    std::string rule;
};

Bounds bounds_of(const recipe::Expectation& e) {
    Bounds b;
    std::vector<std::string> rules;
    if (e.value) {
        const double tol = e.tolerance.value_or(0);
        const double abs_tol = e.tolerance_is_relative ? std::fabs(*e.value) * tol : tol;  // "5%" is stored as 0.05
        b.lo = *e.value - abs_tol;
        b.hi = *e.value + abs_tol;
        rules.push_back(e.tolerance_is_relative
                            ? fmt::format("{:g} ± {:g}% [{:.6g}, {:.6g}]", *e.value, tol * 100, b.lo, b.hi)
                            : fmt::format("{:g} ± {:g} [{:.6g}, {:.6g}]", *e.value, tol, b.lo, b.hi));
    }
    if (e.min) {
        b.lo = std::max(b.lo, *e.min);
        rules.push_back(fmt::format(">= {:g}", *e.min));
    }
    if (e.max) {
        b.hi = std::min(b.hi, *e.max);
        rules.push_back(fmt::format("<= {:g}", *e.max));
    }
    for (std::size_t i = 0; i < rules.size(); ++i) b.rule += (i ? ", " : "") + rules[i];
    return b;
}

}  // namespace

std::vector<ExpectationResult> check_expectations(const RunSummary& summary,
                                                  const std::vector<recipe::Expectation>& expectations) {
    std::vector<ExpectationResult> out;
    const auto& known = expectation_figures();
    for (const recipe::Expectation& e : expectations) {
        if (std::find(known.begin(), known.end(), e.figure) == known.end()) {
            Diagnostics diags;
            diags.error(e.where, "expect." + e.figure, fmt::format("unknown figure '{}'", e.figure),
                        "one of " + quoted_list(known, " or "), did_you_mean(e.figure, known));
            diags.throw_if_errors("invalid expectation");
        }
        Bounds b = bounds_of(e);
        ExpectationResult r{.figure = e.figure,
                            .actual = summary.figure(e.figure),
                            .passed = false,
                            .rule = std::move(b.rule),
                            .message = {},
                            .where = e.where};
        if (!r.actual) {
            r.passed = false;
            r.message = fmt::format("the run has no value for '{}'", e.figure);
        } else if (*r.actual < b.lo) {
            r.message = fmt::format("{:.6g} is below {:.6g}", *r.actual, b.lo);
        } else if (*r.actual > b.hi) {
            r.message = fmt::format("{:.6g} is above {:.6g}", *r.actual, b.hi);
        } else {
            r.passed = true;
        }
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace trainbench::analysis
