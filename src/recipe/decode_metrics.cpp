// Decoding metrics (source, window, FLOPs convention) and expect (the bounds a run must meet).
#include "recipe/loading.hpp"
#include "recipe/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace trainbench::recipe {

void Decoder::decode_metrics(MapReader& top) {
    const Node* n = top.get("metrics");
    if (!n) return;
    m_flops_given = n->is_map() && n->find("flops") != nullptr;
    MapReader mr(*n, "metrics", m_d);
    mr.read_enum("source", m_r.metrics.source, metrics_source_names());
    mr.read("path", m_r.metrics.path);
    std::vector<int> window;
    // A name ("dgxc"); a number stays the type error of a list read below.
    if (const Node* w = mr.get("window");
        w && w->is_scalar() && !w->scalar.empty() && std::isalpha(static_cast<unsigned char>(w->scalar[0]))) {
        decode_named_window(*w);
    } else if (mr.read("window", window, 0)) {
        if (window.size() != 2) {
            m_d.error(mr.get("window")->where, "metrics.window",
                      fmt::format("window has {} value{}", window.size(), window.size() == 1 ? "" : "s"),
                      "[first_step, last_step]");
        } else {
            m_r.metrics.window_start = window[0];
            m_r.metrics.window_end = window[1];
        }
    }
    mr.read_enum("flops", m_r.metrics.flops, flops_names());
    mr.finish();
}

// `metrics.window: dgxc`: a window known by name (named_windows()).
void Decoder::decode_named_window(const Node& w) {
    const NamedWindow* named = find_named_window(w.scalar);
    if (!named) {
        m_d.error(w.where, "metrics.window", fmt::format("unknown window '{}'", w.scalar),
                  "[first_step, last_step] or one of " + quoted_list(named_window_names(), " or "),
                  did_you_mean(w.scalar, named_window_names()));
        return;
    }
    m_r.metrics.window_start = named->start;
    m_r.metrics.window_end = named->end;
    m_r.metrics.window_name = std::string(named->name);
}

// No metrics.flops: the convention the framework version prints (once the version is known).
void Decoder::default_flops_convention() {
    if (m_flops_given) return;
    const std::string_view conv = catalog::default_flops_convention(m_r.framework, m_r.framework_version);
    if (!conv.empty()) m_r.metrics.flops = std::string(conv);
}

void Decoder::decode_expect(MapReader& top) {
    const Node* n = top.get("expect");
    if (!n) return;
    if (!n->is_map()) {
        yaml::type_error(m_d, *n, "expect", "a map of figure: {value, tolerance} or {min, max}");
        return;
    }
    const std::vector<std::string>& figures = figure_names();
    for (const yaml::Entry& e : n->entries) {
        std::string k = yaml::join_key("expect", e.key);
        if (std::find(figures.begin(), figures.end(), e.key) == figures.end()) {
            m_d.error(e.key_where, k, fmt::format("unknown figure '{}'", e.key),
                      fmt::format("one of {}", quoted_list(figures)), did_you_mean(e.key, figures));
            continue;
        }
        MapReader er(e.value, k, m_d);
        if (!er.valid()) continue;
        Expectation x;
        x.figure = e.key;
        x.where = e.key_where;
        double v = 0;
        if (er.read("value", v)) x.value = v;
        if (er.read("min", v)) x.min = v;
        if (er.read("max", v)) x.max = v;
        if (const Node* t = er.get("tolerance")) {
            std::string tk = yaml::join_key(k, "tolerance");
            if (t->is_scalar() && !t->scalar.empty() && t->scalar.back() == '%') {
                Node number = *t;
                number.scalar.pop_back();
                number.quoted = false;
                Diagnostics scratch;
                auto pct = yaml::as_double(number, tk, scratch);
                if (pct && *pct >= 0) {
                    x.tolerance = *pct / 100.0;
                    x.tolerance_is_relative = true;
                } else {
                    m_d.error(t->where, tk, fmt::format("invalid tolerance {}", t->describe()),
                              "a percentage such as '5%' or an absolute number");
                }
            } else if (auto abs = yaml::as_double(*t, tk, m_d)) {
                if (*abs < 0)
                    m_d.error(t->where, tk, "negative tolerance", "a number >= 0");
                else
                    x.tolerance = *abs;
            }
        }
        er.finish();
        if (!x.value && !x.min && !x.max)
            m_d.error(e.key_where, k, "expectation states no bound",
                      "{value: X, tolerance: 5%} or {min: X} / {max: X}");
        if (x.tolerance && !x.value)
            m_d.error(e.key_where, k, "tolerance without a value", "{value: X, tolerance: ...}");
        if (x.min && x.max && *x.min > *x.max)
            m_d.error(e.key_where, k, fmt::format("min {} is greater than max {}", *x.min, *x.max), "min <= max");
        m_r.expectations.push_back(x);
    }
}

}  // namespace trainbench::recipe
