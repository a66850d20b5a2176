// Several runs side by side as a Document (`compare`), and the parts a run's report shares
// with it: the CSV records (one row per run) and the JUnit suites (one per run).
#include "report/format_util.hpp"

#include <fmt/format.h>

namespace trainbench::report {

using analysis::RunSummary;

namespace detail {

std::string figure_with_unit(const RunSummary& s, const FigureInfo& f) {
    std::string v = format_figure(f.key, s.figure(f.key));
    if ((f.key == "mfu" || f.key == "mfu_measured") && s.figure(f.key))
        return fmt::format("{} ({:.2f}%)", v, *s.figure(f.key) * 100);
    if (!f.unit.empty() && v != "-" && f.unit != "tokens/s" && f.unit != "samples/s") v += " " + std::string(f.unit);
    return v;
}

Records summary_records(const std::vector<const RunSummary*>& runs) {
    Records out;
    out.keys = {"label",
                "model",
                "gpus",
                "gpu",
                "precision",
                "global_batch",
                "seq_len",
                "flops_convention",
                "flops_per_sample",
                "peak_tflops",
                "peak_source",
                "window_start",
                "window_end",
                "steps_used_count",
                "warmup_steps"};
    for (const auto& f : summary_figures()) out.keys.emplace_back(f.key);
    out.keys.emplace_back("expectations_passed");
    out.text.assign(out.keys.size(), true);
    for (const RunSummary* r : runs) {
        std::vector<std::string> row = {r->inputs.label,
                                        r->inputs.model.name,
                                        std::to_string(r->inputs.gpus),
                                        r->inputs.gpu_name.empty() ? r->inputs.gpu_family : r->inputs.gpu_name,
                                        r->peak.precision,
                                        std::to_string(r->inputs.global_batch),
                                        std::to_string(r->inputs.seq_len),
                                        r->convention,
                                        fmt::format("{:.17g}", r->flops.per_sample),
                                        fmt::format("{:g}", r->peak.tflops),
                                        r->peak.source,
                                        std::to_string(r->stats.window.start),
                                        std::to_string(r->stats.window.end),
                                        std::to_string(r->stats.count),
                                        steps_text(r->stats.warmup_steps)};
        for (const auto& f : summary_figures()) {
            auto v = r->figure(f.key);
            row.push_back(v ? fmt::format("{:.17g}", *v) : "");
        }
        row.emplace_back(r->expectations_passed() ? "true" : "false");
        out.rows.push_back(std::move(row));
    }
    return out;
}

// One test suite per run: its expectations, with the convention and peak as properties.
TestSuite expectation_suite(const RunSummary& r) {
    TestSuite suite{r.inputs.label,
                    {{"flops_convention", r.convention},
                     {"peak", describe_peak(r.peak)},
                     {"peak_tflops", fmt::format("{:g}", r.peak.tflops)},
                     {"model", r.inputs.model.name},
                     {"gpus", std::to_string(r.inputs.gpus)},
                     {"step_window", fmt::format("{}..{}", r.stats.window.start, r.stats.window.end)}},
                    {}};
    for (const auto& e : r.expectations) {
        const std::string actual = format_figure(e.figure, e.actual);
        TestCase c{e.figure, "trainbench." + r.inputs.label, e.passed, e.message, "expectation", {}};
        c.text = e.passed ? fmt::format("{} = {} ({})", e.figure, actual, e.rule)
                          : fmt::format("{} = {}, expected {}", e.figure, actual, e.rule);
        suite.cases.push_back(std::move(c));
    }
    return suite;
}

}  // namespace detail

namespace {

std::string gpus(const RunSummary& r) {
    return fmt::format("{} x {}", r.inputs.gpus, r.inputs.gpu_name.empty() ? r.inputs.gpu_family : r.inputs.gpu_name);
}

std::string short_peak(const RunSummary& r) {
    return fmt::format("{} {} {:g} TFLOPS", r.peak.gpu, r.peak.precision, r.peak.tflops);
}

// A grid with a column per run and, after each but the first, its difference to the first.
Grid runs_grid(const std::vector<RunSummary>& runs, Align align) {
    Grid g{{{"figure"}}, {}, true};
    for (std::size_t i = 0; i < runs.size(); ++i) {
        g.columns.push_back({runs[i].inputs.label, align});
        if (i > 0) g.columns.push_back({"vs first", align});
    }
    return g;
}

// A row of text per run (no difference).
void add_text_row(Grid& g, const std::vector<RunSummary>& runs, const std::string& label,
                  std::string (*get)(const RunSummary&)) {
    std::vector<Cell>& row = g.rows.emplace_back(1, Cell(label));
    for (std::size_t i = 0; i < runs.size(); ++i) {
        row.emplace_back(get(runs[i]));
        if (i > 0) row.emplace_back();
    }
}

// A row per figure: each run's value and its difference to the first.
void add_figure_rows(Grid& g, const std::vector<RunSummary>& runs, bool with_units) {
    for (const FigureInfo& f : summary_figures()) {
        std::vector<Cell>& row = g.rows.emplace_back(1, Cell(std::string(f.label)));
        for (std::size_t i = 0; i < runs.size(); ++i) {
            Cell value(format_figure(f.key, runs[i].figure(f.key)));
            if (with_units && f.key == "mfu" && runs[i].figure("mfu"))
                value.text += fmt::format(" ({:.2f}%)", *runs[i].figure("mfu") * 100);
            else if (with_units && !f.unit.empty() && value.text != "-")
                value.text += " " + std::string(f.unit);
            value.number = true;
            row.push_back(std::move(value));
            if (i > 0) {
                Cell difference(relative_difference(runs[0].figure(f.key), runs[i].figure(f.key)));
                difference.number = true;
                row.push_back(std::move(difference));
            }
        }
    }
}

void add_blocks(Document& d, const std::vector<RunSummary>& runs) {
    Grid terminal = runs_grid(runs, Align::left);
    terminal.indent = "";
    add_text_row(terminal, runs, "model", [](const RunSummary& r) { return r.inputs.model.name; });
    add_text_row(terminal, runs, "GPUs", gpus);
    add_text_row(terminal, runs, "global batch",
                 [](const RunSummary& r) { return std::to_string(r.inputs.global_batch); });
    add_text_row(terminal, runs, "FLOPs convention", [](const RunSummary& r) { return r.convention; });
    add_text_row(terminal, runs, "peak", short_peak);
    add_figure_rows(terminal, runs, false);
    std::string peaks;
    for (const auto& r : runs) peaks += fmt::format("{}: peak {}\n", r.inputs.label, describe_peak(r.peak));
    Grid markdown = runs_grid(runs, Align::right);
    add_text_row(markdown, runs, "FLOPs convention", [](const RunSummary& r) { return r.convention; });
    add_text_row(markdown, runs, "peak", short_peak);
    add_figure_rows(markdown, runs, false);
    Grid html = runs_grid(runs, Align::right);
    add_text_row(html, runs, "FLOPs convention", [](const RunSummary& r) { return r.convention; });
    add_text_row(html, runs, "peak", [](const RunSummary& r) { return describe_peak(r.peak); });
    add_figure_rows(html, runs, true);
    d.blocks.push_back({std::move(terminal), Show::terminal});
    d.blocks.push_back({Text{std::move(peaks)}, Show::terminal});
    d.blocks.push_back({std::move(markdown), Show::markdown});
    d.blocks.push_back({std::move(html), Show::html});
}

}  // namespace

Document compare_document(const std::vector<RunSummary>& runs, const Parts& parts) {
    Document d;
    d.title = "trainbench compare";
    d.title_level = 2;
    if (parts.blocks) add_blocks(d, runs);
    if (parts.data) d.data = compare_json(runs);
    std::vector<const RunSummary*> all;
    for (const RunSummary& r : runs) all.push_back(&r);
    if (parts.records) d.records = detail::summary_records(all);
    if (parts.tests) {
        d.tests_name = "trainbench expectations";
        for (const RunSummary& r : runs) d.tests.push_back(detail::expectation_suite(r));
    }
    return d;
}

std::string render_compare(const std::vector<RunSummary>& runs, std::string_view format, const ReportOptions& options) {
    const ReporterInfo& info = reporter_info(format);
    return info.make(options)->render(compare_document(runs, info.parts));
}

}  // namespace trainbench::report
