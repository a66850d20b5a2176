// A Result from an analysed report, and its JSON form.
#include "results/columns.hpp"

#include <trainbench/results.hpp>
#include <trainbench/sweep.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench::results {

namespace {

std::string host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
    return buf;
}

// The first log's modification time, as UTC ISO.
std::string log_mtime(const std::vector<std::string>& files) {
    struct stat st {};
    if (files.empty() || ::stat(files.front().c_str(), &st) != 0) return utc_now();
    return format_utc(std::chrono::system_clock::from_time_t(st.st_mtime));
}

bool lower_or_digit(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool letter_or_digit(char c) {
    return lower_or_digit(c) || (c >= 'A' && c <= 'Z');
}

// ran_at as given (RFC 3339, any offset) -> UTC "2026-03-01T05:00:00Z".
std::string utc_ran_at(const std::string& text) {
    const auto t = parse_utc(text);
    if (!t)
        throw UsageError(fmt::format("--ran-at '{}' is not a date and time", terminal_safe(text)),
                         "write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS with Z or an offset, e.g. 2026-03-01T10:00:00Z");
    return format_utc(*t);
}

// "2026-11-23T19:02:03Z" -> "20261123T190203Z" (the run-id style of format_utc); a text that is
// not a time keeps its letters and digits.
std::string compact(const std::string& iso) {
    if (const auto t = parse_utc(iso)) return format_utc(*t, UtcStyle::compact);
    std::string out;
    for (char c : iso)
        if (c != '-' && c != ':') out += c;
    return out.substr(0, std::min<std::size_t>(out.size(), 16));
}

void fill_from_recipe(Result& r, const recipe::Recipe& rec, const std::string& text) {
    r.recipe_name = rec.name;
    r.recipe_hash = sweep::fnv1a_hex(text);
    r.target = rec.target_name.empty() ? rec.target.name : rec.target_name;
    r.nodes = rec.nodes;
    r.framework = rec.framework;
    r.framework_version = rec.framework_version;
    r.container = rec.container.image;
}

}  // namespace

analysis::Inputs inputs_from_recipe(const recipe::Recipe& r) {
    analysis::Inputs in;
    in.model = r.model;
    in.model_origin = "recipe";
    in.gpus = r.total_gpus();
    in.gpus_origin = "recipe";
    in.gpu_name = r.gpu.name;
    in.gpu_family = r.gpu.family;
    in.precision = r.precision;
    in.precision_origin = "recipe";
    in.global_batch = r.batch.global;
    in.global_batch_origin = "recipe";
    in.seq_len = r.model.seq_length;
    in.seq_len_origin = "recipe";
    in.micro_batch = r.batch.micro;
    in.tensor_parallel = r.parallelism.tensor;
    in.pipeline_parallel = r.parallelism.pipeline;
    in.virtual_pipeline = r.parallelism.virtual_pipeline;
    in.context_parallel = r.parallelism.context;
    in.expert_parallel = r.parallelism.expert;
    in.window = {r.metrics.window_start, r.metrics.window_end, r.metrics.window_name};
    in.window_origin = "recipe";
    in.convention = r.metrics.flops;
    in.convention_origin = "recipe";
    if (!r.gpu.name.empty()) in.catalog_gpu = r.gpu;
    return in;
}

std::string label_problem(std::string_view kind, std::string_view value) {
    const bool container = kind == "container", tag = kind == "tag";
    const std::size_t limit = container ? 255 : tag ? 64 : 100;
    std::string_view extra = container ? "._-:/@+" : tag ? "._-:/+" : "._-";
    const auto allowed = [&](char c) {
        return (container || tag ? letter_or_digit(c) : lower_or_digit(c)) || extra.find(c) != std::string_view::npos;
    };
    const std::string what = container ? "letters, digits and . _ - : / @ +"
                             : tag     ? "letters, digits and . _ - : / +"
                                       : "lower-case letters, digits, '.', '_' or '-'";
    if (value.empty()) return fmt::format("an empty {}", kind);
    if (value.size() > limit) return fmt::format("a {} longer than {} characters", kind, limit);
    if (!(container || tag ? letter_or_digit(value.front()) : lower_or_digit(value.front())) ||
        !std::all_of(value.begin(), value.end(), allowed))
        return fmt::format("'{}' is not a valid {}: {}, starting with a letter or digit", terminal_safe(value), kind,
                           what);
    return {};
}

Result make_result(const analysis::RunSummary& s, const ResultLabels& labels) {
    for (const auto& [kind, value] : {std::pair<std::string_view, const std::string&>{"name", labels.name},
                                      {"target", labels.target},
                                      {"container", labels.container}})
        if (!value.empty())
            if (std::string why = label_problem(kind, value); !why.empty())
                throw UsageError(fmt::format("--{}: {}", kind, why));
    Result r;
    const analysis::Provenance& p = s.provenance;
    r.recorded_at = utc_now(UtcStyle::iso_micro);
    r.host = host_name();
    r.run_dir = p.run_dir;
    r.source = p.run_dir.empty() ? "logs" : "run";
    if (labels.recipe) fill_from_recipe(r, *labels.recipe, labels.recipe_text);
    if (r.recipe_name.empty()) r.recipe_name = !labels.name.empty() ? labels.name : p.recipe_name;
    if (r.recipe_name.empty()) r.recipe_name = s.inputs.label;
    if (!labels.target.empty()) r.target = labels.target;
    if (!labels.container.empty()) r.container = labels.container;
    r.model = s.inputs.model.name;
    r.gpu = s.inputs.gpu_name.empty() ? s.inputs.gpu_family : s.inputs.gpu_name;
    r.gpus = s.inputs.gpus;
    if (r.nodes == 0) r.nodes = 1;
    r.tensor_parallel = s.inputs.tensor_parallel;
    r.pipeline_parallel = s.inputs.pipeline_parallel;
    r.global_batch = s.inputs.global_batch;
    r.seq_len = s.inputs.seq_len;
    r.precision = std::string(catalog::to_string(s.inputs.precision));
    r.convention = s.convention;
    r.peak_tflops = s.peak.tflops;
    r.peak_source = s.peak.source;
    r.window_start = s.stats.window.start;
    r.window_end = s.stats.window.end;
    r.step_time_mean = s.stats.mean;
    r.step_time_median = s.stats.median;
    r.step_time_p10 = s.stats.p10;
    r.step_time_p90 = s.stats.p90;
    r.step_time_stddev = s.stats.stddev;
    r.tokens_per_s = s.derived.tokens_per_s;
    r.tflops_per_gpu = s.derived.tflops_per_gpu;
    r.mfu = s.derived.mfu;
    // A NaN loss (a diverged run; the report warns) is recorded as no loss: only finite figures are stored.
    if (!s.loss.empty() && std::isfinite(s.loss.back().value)) r.final_loss = s.loss.back().value;
    r.log_format = p.log_format;
    r.tool_version = p.tool_version.empty() ? std::string(version()) : p.tool_version;
    for (const analysis::SeriesPoint& pt : s.step_times)
        if (pt.step >= r.window_start && pt.step <= r.window_end) r.window_steps.push_back({pt.step, pt.value});

    r.ran_at =
        !p.created.empty() ? p.created : (!labels.ran_at.empty() ? utc_ran_at(labels.ran_at) : log_mtime(p.log_files));
    // What identifies the figures: the same report recorded twice is one row.
    std::string identity =
        fmt::format("{}|{}|{}|{}|{}|{:.17g}|{}|{}|{:.17g}", p.run_id, r.recipe_name, r.ran_at, r.convention,
                    r.precision, r.peak_tflops, r.window_start, r.window_end, r.step_time_mean);
    for (const analysis::StepSample& st : r.window_steps) identity += fmt::format("|{}:{:.17g}", st.step, st.seconds);
    const std::string hash = sweep::fnv1a_hex(identity);
    r.run_id = !p.run_id.empty() ? p.run_id : compact(r.ran_at) + "-" + hash.substr(0, 6);
    r.result_id = r.run_id + "-" + hash;
    return r;
}

nlohmann::ordered_json Result::to_json() const {
    nlohmann::ordered_json j;
    for (const detail::Column& c : detail::result_columns()) {
        const detail::Value v = c.get(*this);
        if (const auto* s = std::get_if<std::string>(&v))
            j[c.name] = *s;
        else if (const auto* n = std::get_if<std::int64_t>(&v))
            j[c.name] = *n;
        else if (const auto* d = std::get_if<double>(&v))
            j[c.name] = *d;
        else
            j[c.name] = nullptr;
    }
    j["tags"] = tags;
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const analysis::StepSample& s : window_steps) steps.push_back({{"step", s.step}, {"seconds", s.seconds}});
    j["window_steps"] = steps;
    return j;
}

}  // namespace trainbench::results
