#include "results/columns.hpp"

#include <fmt/format.h>

#include <charconv>

namespace trainbench::results::detail {

namespace {

std::string text_of(const std::optional<std::string>& v) {
    return v.value_or("");
}
double double_of(const std::optional<std::string>& v) {
    return v ? parse_double(*v) : 0.0;
}
std::int64_t int_of(const std::optional<std::string>& v) {
    return v ? parse_int(*v) : 0;
}

}  // namespace

double parse_double(const std::string& text) {
    double v = 0;
    const char* end = text.data() + text.size();
    // from_chars, never strtod/stod: a denormal (MFU of 2e-310) is a value, not an error. (An
    // infinity an older trainbench stored reads back as one; record() stores finite values only.)
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc{} || ptr != end || text.empty()) throw BadValue{text};
    return v;
}

std::int64_t parse_int(const std::string& text) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc{} || ptr != end || text.empty()) throw BadValue{text};
    return v;
}

std::string statement_head(const std::string& sql) {
    constexpr std::size_t k_max = 60;
    std::string head = sql.substr(0, std::min(sql.find('\n'), k_max));
    return head.size() < sql.size() ? head + " ..." : head;
}

// One row per column: name, Result -> value, value -> Result.
#define TB_TEXT(field)                                                                                                \
    {                                                                                                                 \
#field, [](const Result& r)                                                                                   \
                     -> Value { return r.field; }, [](Result & r,                                                     \
                                                      const std::optional <std::string>& v) { r.field = text_of(v); } \
    }
#define TB_DOUBLE(field)                                                                                             \
    {                                                                                                                \
#field, [](const Result& r)                                                                                  \
                     -> Value { return r.field; },                                                                   \
                                                [](Result & r,                                                       \
                                                   const std::optional <std::string>& v) { r.field = double_of(v); } \
    }
#define TB_INT(field)                                                                  \
    {                                                                                  \
#field, [](const Result& r) -> Value { return static_cast<std::int64_t>(r.field); }, \
     [](Result& r, const std::optional<std::string>& v) { r.field = static_cast<decltype(r.field)>(int_of(v)); } \
    }

const std::vector<Column>& result_columns() {
    static const std::vector<Column> columns = {
        TB_TEXT(result_id),
        TB_TEXT(run_id),
        TB_TEXT(recorded_at),
        TB_TEXT(ran_at),
        TB_TEXT(host),
        TB_TEXT(run_dir),
        TB_TEXT(source),
        TB_TEXT(recipe_name),
        TB_TEXT(recipe_hash),
        TB_TEXT(target),
        TB_TEXT(model),
        TB_TEXT(gpu),
        TB_INT(nodes),
        TB_INT(gpus),
        TB_INT(tensor_parallel),
        TB_INT(pipeline_parallel),
        TB_INT(global_batch),
        TB_INT(seq_len),
        TB_TEXT(precision),
        TB_TEXT(framework),
        TB_TEXT(framework_version),
        TB_TEXT(container),
        TB_TEXT(convention),
        TB_DOUBLE(peak_tflops),
        TB_TEXT(peak_source),
        TB_INT(window_start),
        TB_INT(window_end),
        {"step_count", [](const Result& r) -> Value { return static_cast<std::int64_t>(r.window_steps.size()); },
         [](Result&, const std::optional<std::string>&) {}},
        TB_DOUBLE(step_time_mean),
        TB_DOUBLE(step_time_median),
        TB_DOUBLE(step_time_p10),
        TB_DOUBLE(step_time_p90),
        TB_DOUBLE(step_time_stddev),
        TB_DOUBLE(tokens_per_s),
        TB_DOUBLE(tflops_per_gpu),
        TB_DOUBLE(mfu),
        {"final_loss", [](const Result& r) -> Value { return r.final_loss ? Value(*r.final_loss) : Value(); },
         [](Result& r, const std::optional<std::string>& v) {
             r.final_loss = v ? std::optional<double>(parse_double(*v)) : std::nullopt;
         }},
        TB_TEXT(log_format),
        TB_TEXT(tool_version),
    };
    return columns;
}

#undef TB_TEXT
#undef TB_DOUBLE
#undef TB_INT

std::string column_list() {
    std::string out;
    for (const Column& c : result_columns()) out += (out.empty() ? "" : ", ") + std::string(c.name);
    return out;
}

std::string placeholder_list() {
    std::string out;
    for (std::size_t i = 1; i <= result_columns().size(); ++i) out += fmt::format("{}${}", i == 1 ? "" : ", ", i);
    return out;
}

}  // namespace trainbench::results::detail
