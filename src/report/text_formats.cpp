// The text formats: table (terminal), json, csv, markdown, junit.
#include "report/format_util.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::report::detail {

using analysis::RunSummary;

namespace {

// ANSI styling that is a no-op without colour.
struct Style {
    bool on = false;
    [[nodiscard]] std::string wrap(std::string_view code, std::string_view text) const {
        if (!on) return std::string(text);
        return fmt::format("\033[{}m{}\033[0m", code, text);
    }
    [[nodiscard]] std::string bold(std::string_view t) const { return wrap("1", t); }
    [[nodiscard]] std::string pass(std::string_view t) const { return wrap("32", t); }
    [[nodiscard]] std::string fail(std::string_view t) const { return wrap("1;31", t); }
    [[nodiscard]] std::string warn(std::string_view t) const { return wrap("33", t); }
    [[nodiscard]] std::string dim(std::string_view t) const { return wrap("2", t); }
};

// Columns padded to the widest cell (display width counts UTF-8 code points).
std::size_t display_width(std::string_view s) {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
    return n;
}

std::string pad(std::string_view s, std::size_t width) {
    std::string out(s);
    const std::size_t w = display_width(s);
    if (w < width) out.append(width - w, ' ');
    return out;
}

// Every line of a block indented by two spaces.
std::string indent(const std::string& block) {
    std::string out;
    std::size_t start = 0;
    while (start < block.size()) {
        std::size_t end = block.find('\n', start);
        if (end == std::string::npos) end = block.size() - 1;
        out += "  " + block.substr(start, end - start + 1);
        start = end + 1;
    }
    return out;
}

// A Markdown table of rows whose first is the header.
std::string md_table(const std::vector<std::vector<std::string>>& rows) {
    std::string out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        out += "|";
        for (const auto& cell : rows[i]) out += " " + md_escape(cell) + " |";
        out += "\n";
        if (i == 0) {
            out += "|";
            for (std::size_t c = 0; c < rows[i].size(); ++c) out += "---|";
            out += "\n";
        }
    }
    return out;
}

std::string figure_value_with_unit(const RunSummary& s, const FigureInfo& f) {
    std::string v = format_figure(f.key, s.figure(f.key));
    if ((f.key == "mfu" || f.key == "mfu_measured") && s.figure(f.key))
        return fmt::format("{} ({:.2f}%)", v, *s.figure(f.key) * 100);
    if (!f.unit.empty() && v != "-" && f.unit != "tokens/s" && f.unit != "samples/s") v += " " + std::string(f.unit);
    return v;
}

class TableReporter final : public Reporter {
public:
    explicit TableReporter(const ReportOptions& o) : m_style{o.color} {}

    std::string render(const Document& d) const override { return document_terminal(d); }

    std::string render(const RunSummary& s) const override {
        std::string out = m_style.bold("report: " + s.inputs.label) + "\n";
        const auto rows = input_rows(s);
        std::size_t w = 0;
        for (const auto& r : rows) w = std::max(w, display_width(r.label));
        for (const auto& r : rows) {
            out += "  " + pad(r.label, w) + "  " + r.value;
            if (!r.origin.empty()) out += "  " + m_style.dim("(" + r.origin + ")");
            out += "\n";
        }
        out += "\n" + m_style.bold("figures") + "\n";
        std::size_t fw = 0;
        const std::vector<FigureInfo> figures = report_figures(s);
        for (const auto& f : figures) fw = std::max(fw, display_width(figure_label(s, f)));
        for (const auto& f : figures)
            out += "  " + pad(figure_label(s, f), fw) + "  " + figure_value_with_unit(s, f) + "\n";
        if (!s.conventions.empty()) {
            const auto table = conventions_rows(s);
            out += "\n" + m_style.bold("under every convention (* = the report's)") + "\n" +
                   indent(fitted_table(table.front(), {table.begin() + 1, table.end()}));
        }
        if (s.reference) {
            const auto table = reference_rows(s);
            out += "\n" + m_style.bold("against " + s.reference->row.id) + "  " + m_style.dim(s.reference->row.source) +
                   "\n" + indent(fitted_table(table.front(), {table.begin() + 1, table.end()})) + "  " +
                   differences_text(*s.reference);
        }
        if (!s.expectations.empty()) {
            out += "\n" + m_style.bold("expectations") + "\n";
            std::size_t ew = 0;
            for (const auto& e : s.expectations) ew = std::max(ew, e.figure.size());
            for (const auto& e : s.expectations) {
                out += "  " + (e.passed ? m_style.pass("PASS") : m_style.fail("FAIL")) + "  " + pad(e.figure, ew) +
                       "  " + pad(format_figure(e.figure, e.actual), 14) + "  " + e.rule;
                if (!e.message.empty()) out += "  " + e.message;
                out += "\n";
            }
        }
        if (!s.cross_checks.empty()) {
            out += "\n" + m_style.bold("cross-check (log declares / given)") + "\n";
            std::size_t kw = 0, lw = 0;
            for (const auto& c : s.cross_checks) {
                kw = std::max(kw, c.key.size());
                lw = std::max(lw, c.logged.size());
            }
            for (const auto& c : s.cross_checks)
                out += "  " + (c.match ? m_style.pass("ok  ") : m_style.fail("DIFF")) + "  " + pad(c.key, kw) + "  " +
                       pad(c.logged, lw) + "  " + c.given + "  " +
                       m_style.dim("(" + c.log_key + " / " + c.origin + ")") + "\n";
        }
        if (!s.findings.empty()) {
            out += "\n";
            for (const auto& f : s.findings) {
                std::string sev(severity_name(f.severity));
                out += (f.severity == Severity::note ? m_style.dim(sev) : m_style.warn(sev)) + ": " + f.message + "\n";
            }
        }
        return out;
    }

    std::string render_compare(const std::vector<RunSummary>& runs) const override {
        std::vector<std::vector<std::string>> table;
        std::vector<std::string> header = {"figure"};
        for (std::size_t i = 0; i < runs.size(); ++i) {
            header.push_back(runs[i].inputs.label);
            if (i > 0) header.push_back("vs first");
        }
        table.push_back(header);
        auto text_row = [&](std::string label, auto get) {
            std::vector<std::string> row = {std::move(label)};
            for (std::size_t i = 0; i < runs.size(); ++i) {
                row.push_back(get(runs[i]));
                if (i > 0) row.emplace_back("");
            }
            table.push_back(row);
        };
        text_row("model", [](const RunSummary& r) { return r.inputs.model.name; });
        text_row("GPUs", [](const RunSummary& r) {
            return fmt::format("{} x {}", r.inputs.gpus,
                               r.inputs.gpu_name.empty() ? r.inputs.gpu_family : r.inputs.gpu_name);
        });
        text_row("global batch", [](const RunSummary& r) { return std::to_string(r.inputs.global_batch); });
        text_row("FLOPs convention", [](const RunSummary& r) { return r.convention; });
        text_row("peak", [](const RunSummary& r) {
            return fmt::format("{} {} {:g} TFLOPS", r.peak.gpu, r.peak.precision, r.peak.tflops);
        });
        for (const auto& f : summary_figures()) {
            std::vector<std::string> row = {std::string(f.label)};
            for (std::size_t i = 0; i < runs.size(); ++i) {
                row.push_back(format_figure(f.key, runs[i].figure(f.key)));
                if (i > 0) row.push_back(relative_difference(runs[0].figure(f.key), runs[i].figure(f.key)));
            }
            table.push_back(row);
        }
        std::vector<std::size_t> widths(header.size(), 0);
        for (const auto& row : table)
            for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
        std::string out;
        for (std::size_t r = 0; r < table.size(); ++r) {
            std::string line;
            for (std::size_t c = 0; c < table[r].size(); ++c) line += (c ? "  " : "") + pad(table[r][c], widths[c]);
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out += (r == 0 ? m_style.bold(line) : line) + "\n";
        }
        for (const auto& r : runs) out += fmt::format("{}: peak {}\n", r.inputs.label, describe_peak(r.peak));
        return out;
    }

private:
    Style m_style;
};

class JsonReporter final : public Reporter {
public:
    explicit JsonReporter(const ReportOptions& o) : m_series(o.series) {}
    std::string render(const Document& d) const override { return document_json(d); }
    std::string render(const RunSummary& s) const override { return to_json(s, m_series).dump(2) + "\n"; }
    std::string render_compare(const std::vector<RunSummary>& runs) const override {
        return compare_json(runs).dump(2) + "\n";
    }

private:
    bool m_series = false;
};

const std::vector<std::string>& csv_input_columns() {
    static const std::vector<std::string> cols = {"label",
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
    return cols;
}

class CsvReporter final : public Reporter {
public:
    std::string render(const Document& d) const override { return document_csv(d); }
    std::string render(const RunSummary& s) const override { return render_compare({s}); }
    std::string render_compare(const std::vector<RunSummary>& runs) const override {
        std::string out;
        std::vector<std::string> header = csv_input_columns();
        for (const auto& f : summary_figures()) header.emplace_back(f.key);
        header.emplace_back("expectations_passed");
        for (std::size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
        out += "\n";
        for (const auto& r : runs) {
            std::vector<std::string> row = {r.inputs.label,
                                            r.inputs.model.name,
                                            std::to_string(r.inputs.gpus),
                                            r.inputs.gpu_name.empty() ? r.inputs.gpu_family : r.inputs.gpu_name,
                                            r.peak.precision,
                                            std::to_string(r.inputs.global_batch),
                                            std::to_string(r.inputs.seq_len),
                                            r.convention,
                                            fmt::format("{:.17g}", r.flops.per_sample),
                                            fmt::format("{:g}", r.peak.tflops),
                                            r.peak.source,
                                            std::to_string(r.stats.window.start),
                                            std::to_string(r.stats.window.end),
                                            std::to_string(r.stats.count),
                                            steps_text(r.stats.warmup_steps)};
            for (const auto& f : summary_figures()) {
                auto v = r.figure(f.key);
                row.push_back(v ? fmt::format("{:.17g}", *v) : "");
            }
            row.emplace_back(r.expectations_passed() ? "true" : "false");
            for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + csv_field(row[i]);
            out += "\n";
        }
        return out;
    }
};

class MarkdownReporter final : public Reporter {
public:
    std::string render(const Document& d) const override { return document_markdown(d); }
    std::string render(const RunSummary& s) const override {
        std::string out = "## trainbench report: " + md_escape(s.inputs.label) + "\n\n";
        out += "| input | value | from |\n|---|---|---|\n";
        for (const auto& r : input_rows(s))
            out += "| " + md_escape(r.label) + " | " + md_escape(r.value) + " | " + md_escape(r.origin) + " |\n";
        out += "\n| figure | value |\n|---|---:|\n";
        for (const auto& f : report_figures(s))
            out += "| " + md_escape(figure_label(s, f)) + " | " + figure_value_with_unit(s, f) + " |\n";
        if (!s.conventions.empty()) out += "\n" + md_table(conventions_rows(s));
        if (s.reference)
            out += "\nagainst " + md_escape(s.reference->row.id) + " (" + md_escape(s.reference->row.source) + ")\n\n" +
                   md_table(reference_rows(s)) + "\n" + md_escape(differences_text(*s.reference));
        if (!s.expectations.empty()) {
            out += "\n| expectation | result | actual | rule |\n|---|---|---:|---|\n";
            for (const auto& e : s.expectations)
                out += "| " + md_escape(e.figure) + " | " + (e.passed ? "pass" : "**FAIL** " + md_escape(e.message)) +
                       " | " + format_figure(e.figure, e.actual) + " | " + md_escape(e.rule) + " |\n";
        }
        if (!s.cross_checks.empty()) {
            out += "\n| declared by the log | logged | given | from | |\n|---|---:|---:|---|---|\n";
            for (const auto& c : s.cross_checks)
                out += "| " + md_escape(c.log_key) + " | " + md_escape(c.logged) + " | " + md_escape(c.given) + " | " +
                       md_escape(c.origin) + " | " + (c.match ? "ok" : "**mismatch**") + " |\n";
        }
        if (!s.findings.empty()) {
            out += "\n";
            for (const auto& f : s.findings)
                out += fmt::format("- {}: ", severity_name(f.severity)) + md_escape(f.message) + "\n";
        }
        return out;
    }
    std::string render_compare(const std::vector<RunSummary>& runs) const override {
        std::string out = "## trainbench compare\n\n| figure |";
        std::string rule = "|---|";
        for (std::size_t i = 0; i < runs.size(); ++i) {
            out += " " + md_escape(runs[i].inputs.label) + " |";
            rule += "---:|";
            if (i > 0) {
                out += " vs first |";
                rule += "---:|";
            }
        }
        out += "\n" + rule + "\n";
        auto text_row = [&](const std::string& label, auto get) {
            out += "| " + label + " |";
            for (std::size_t i = 0; i < runs.size(); ++i) out += " " + md_escape(get(runs[i])) + " |" + (i ? " |" : "");
            out += "\n";
        };
        text_row("FLOPs convention", [](const RunSummary& r) { return r.convention; });
        text_row("peak", [](const RunSummary& r) {
            return fmt::format("{} {} {:g} TFLOPS", r.peak.gpu, r.peak.precision, r.peak.tflops);
        });
        for (const auto& f : summary_figures()) {
            out += "| " + md_escape(f.label) + " |";
            for (std::size_t i = 0; i < runs.size(); ++i) {
                out += " " + format_figure(f.key, runs[i].figure(f.key)) + " |";
                if (i > 0) out += " " + relative_difference(runs[0].figure(f.key), runs[i].figure(f.key)) + " |";
            }
            out += "\n";
        }
        return out;
    }
};

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

class JunitReporter final : public Reporter {
public:
    std::string render(const Document& d) const override { return junit_xml(d.tests_name, d.tests); }
    std::string render(const RunSummary& s) const override { return render_compare({s}); }
    std::string render_compare(const std::vector<RunSummary>& runs) const override {
        std::vector<TestSuite> suites;
        for (const auto& r : runs) suites.push_back(expectation_suite(r));
        return junit_xml("trainbench expectations", suites);
    }
};

}  // namespace

std::unique_ptr<Reporter> make_table(const ReportOptions& o) {
    return std::make_unique<TableReporter>(o);
}
std::unique_ptr<Reporter> make_json(const ReportOptions& o) {
    return std::make_unique<JsonReporter>(o);
}
std::unique_ptr<Reporter> make_csv(const ReportOptions&) {
    return std::make_unique<CsvReporter>();
}
std::unique_ptr<Reporter> make_markdown(const ReportOptions&) {
    return std::make_unique<MarkdownReporter>();
}
std::unique_ptr<Reporter> make_junit(const ReportOptions&) {
    return std::make_unique<JunitReporter>();
}

}  // namespace trainbench::report::detail
