// FLOPs conventions and published references as people and programs read them:
// `list conventions`, `list references`, `flops`, and the sections `report
// --conventions` and `report --reference ID` add to a run's report.
#include "report/format_util.hpp"

#include <fmt/format.h>

#include <cmath>

namespace trainbench::report {

namespace {

using Row = std::vector<std::string>;

std::string pct(double fraction) {
    return fmt::format("{:+.2f}%", fraction * 100);
}

nlohmann::ordered_json sources_json(const analysis::FlopsConvention& c) {
    auto arr = nlohmann::ordered_json::array();
    for (const auto& s : c.sources)
        arr.push_back({{"repository", s.repository},
                       {"file", s.file},
                       {"function", s.function},
                       {"commit", s.commit},
                       {"date", s.date}});
    return arr;
}

std::string source_text(const analysis::FlopsConvention& c) {
    std::string out;
    for (const auto& s : c.sources) {
        if (!out.empty()) out += "; ";
        out += fmt::format("{} {}{}", s.repository, s.file,
                           s.commit.empty() ? "" : "@" + std::string(s.commit.substr(0, 8)));
    }
    return out;
}

}  // namespace

Listing convention_listing() {
    Listing out;
    for (const auto& c : analysis::flops_conventions()) {
        std::vector<std::string> aliases;
        for (const auto& a : analysis::flops_convention_aliases())
            if (a.target == c.name) aliases.emplace_back(a.name);
        out.rows.push_back(
            {std::string(c.name), quoted_list(aliases), std::string(c.framework), c.date_range(), source_text(c)});
        out.json.push_back({{"name", c.name},
                            {"aliases", aliases},
                            {"framework", c.framework},
                            {"from", c.from},
                            {"until", c.until},
                            {"versions", c.versions},
                            {"covers", c.covers},
                            {"causal", c.causal},
                            {"hardware_flops_like", c.hardware_flops_like},
                            {"description", c.description},
                            {"sources", sources_json(c)}});
    }
    out.header = {"CONVENTION", "ALIASES", "FRAMEWORK", "DATES", "SOURCE"};
    return out;
}

Listing flops_listing(const analysis::FlopsInput& input, const std::vector<analysis::ConventionMatch>* matches) {
    Listing out;
    const double seq = input.seq();
    for (const analysis::ConventionValue& v : analysis::flops_under_every_convention(input)) {
        const analysis::ConventionMatch* m = nullptr;
        if (matches)
            for (const auto& x : *matches)
                if (x.convention == v.convention) m = &x;
        nlohmann::ordered_json j = {{"name", v.convention->name}, {"dates", v.convention->date_range()}};
        Row row = {std::string(v.convention->name), v.convention->date_range()};
        if (v.flops) {
            j["flops_per_sample"] = v.flops->per_sample;
            j["flops_per_token"] = v.flops->per_sample / seq;
            j["vocab_used"] = v.flops->vocab_used;
            j["formula"] = v.flops->formula;
            j["note"] = v.flops->note;
            row.push_back(fmt::format("{:.6e}", v.flops->per_sample));
            row.push_back(fmt::format("{:.6e}", v.flops->per_sample / seq));
        } else {
            j["flops_per_sample"] = nullptr;
            j["problem"] = v.problem;
            row.push_back("-");
            row.push_back("-");
        }
        if (matches) {
            j["tflops_per_gpu"] = m ? nlohmann::ordered_json(m->tflops_per_gpu) : nullptr;
            j["difference"] = m ? nlohmann::ordered_json(m->difference) : nullptr;
            j["reproduces"] = m && m->within;
            row.push_back(m ? fmt::format("{:.1f}", m->tflops_per_gpu) : "-");
            row.push_back(m ? pct(m->difference) + (m->within ? "  reproduces" : "") : v.problem);
        } else if (!v.flops) {
            row.push_back(v.problem);
        }
        out.rows.push_back(std::move(row));
        out.json.push_back(std::move(j));
    }
    out.header = {"CONVENTION", "DATES", "FLOPS/SAMPLE", "FLOPS/TOKEN"};
    if (matches) {
        out.header.push_back("TFLOPS/GPU");
        out.header.push_back("VS PUBLISHED");
    } else {
        out.header.push_back("NOTE");
    }
    return out;
}

Listing reference_listing(const std::vector<catalog::Reference>& rows,
                          const std::vector<analysis::ReferenceCheck>& checks) {
    Listing out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const catalog::Reference& r = rows[i];
        const analysis::ReferenceCheck& c = checks[i];
        std::string reproduced =
            c.tflops_per_gpu ? fmt::format("{:.1f} ({})", *c.tflops_per_gpu, pct(c.difference)) : std::string("-");
        if (c.tflops_per_gpu && !c.within) reproduced += r.explained.empty() ? "  NOT REPRODUCED" : "  explained";
        out.rows.push_back({r.id, r.model, fmt::format("{} x{}", r.gpu, r.gpus), r.precision,
                            fmt::format("{:g}", r.tokens_per_s_per_gpu), fmt::format("{:g}", r.tflops_per_gpu),
                            c.convention, reproduced});
        out.json.push_back(
            {{"id", r.id},
             {"source", r.source},
             {"publisher", r.publisher},
             {"release", r.release},
             {"framework", r.framework},
             {"model", r.model},
             {"published_model", r.published_model},
             {"system", r.system},
             {"gpu", r.gpu},
             {"gpus", r.gpus},
             {"precision", r.precision},
             {"global_batch", r.global_batch},
             {"micro_batch", r.micro_batch},
             {"seq_length", r.seq_length},
             {"parallelism",
              {{"tp", r.tensor}, {"pp", r.pipeline}, {"cp", r.context}, {"vp", r.virtual_pipeline}, {"ep", r.expert}}},
             {"tokens_per_s_per_gpu", r.tokens_per_s_per_gpu},
             {"tflops_per_gpu", r.tflops_per_gpu},
             {"convention", c.convention},
             {"why", r.why},
             {"reproduced_tflops_per_gpu", c.tflops_per_gpu ? nlohmann::ordered_json(*c.tflops_per_gpu) : nullptr},
             {"reproduced_difference", c.tflops_per_gpu ? nlohmann::ordered_json(c.difference) : nullptr},
             {"reproduced", c.within},
             {"explained", r.explained},
             {"problem", c.problem},
             {"file", r.where.to_string()}});
    }
    out.header = {"REFERENCE", "MODEL", "GPUS", "PRECISION", "TOKENS/S/GPU", "TFLOPS/GPU", "CONVENTION", "TRAINBENCH"};
    return out;
}

namespace detail {

std::vector<std::vector<std::string>> conventions_rows(const analysis::RunSummary& s) {
    std::vector<Row> rows = {{"convention", "dates", "FLOPs/sample", "TFLOPS/GPU", "MFU", "peak"}};
    for (const analysis::ConventionFigures& f : s.conventions) {
        const bool used = f.convention->name == s.convention;
        Row row = {std::string(f.convention->name) + (used ? " *" : ""), f.convention->date_range()};
        if (!f.flops) {
            row.insert(row.end(), {"-", "-", "-", f.problem});
        } else {
            row.push_back(fmt::format("{:.6e}", f.flops->per_sample));
            row.push_back(fmt::format("{:.2f}", f.tflops_per_gpu));
            row.push_back(f.peak ? fmt::format("{:.4f}", f.mfu) : "-");
            row.push_back(f.peak ? fmt::format("{:g} ({} {})", f.peak->tflops, f.peak->gpu, f.peak->precision)
                                 : std::string("no peak for this GPU"));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<std::vector<std::string>> reference_rows(const analysis::RunSummary& s) {
    const analysis::ReferenceComparison& c = *s.reference;
    const catalog::Reference& r = c.row;
    std::vector<Row> rows = {{"", "run", "published", "run as % of row"}};
    rows.push_back({"step time (s)", fmt::format("{:.4f}", s.stats.mean), fmt::format("{:.4f}", c.row_step_time_s),
                    fmt::format("{:.1f}% (below 100: faster)", c.step_time_pct)});
    rows.push_back({"tokens/s/GPU", fmt::format("{:.1f}", s.derived.tokens_per_s_per_gpu),
                    fmt::format("{:g}", r.tokens_per_s_per_gpu), fmt::format("{:.1f}%", c.tokens_per_s_per_gpu_pct)});
    rows.push_back({"TFLOPS/GPU (" + c.reproduced.convention + ")",
                    c.run_tflops ? fmt::format("{:.2f}", *c.run_tflops) : "-", fmt::format("{:g}", r.tflops_per_gpu),
                    c.run_tflops ? fmt::format("{:.1f}%", c.tflops_pct) : c.reproduced.problem});
    return rows;
}

nlohmann::ordered_json conventions_json(const analysis::RunSummary& s) {
    auto arr = nlohmann::ordered_json::array();
    for (const analysis::ConventionFigures& f : s.conventions) {
        nlohmann::ordered_json j = {{"name", f.convention->name}, {"dates", f.convention->date_range()}};
        if (!f.flops) {
            j["problem"] = f.problem;
        } else {
            j["flops_per_sample"] = f.flops->per_sample;
            j["tflops_per_gpu"] = f.tflops_per_gpu;
            j["mfu"] = f.peak ? nlohmann::ordered_json(f.mfu) : nullptr;
            j["peak_tflops"] = f.peak ? nlohmann::ordered_json(f.peak->tflops) : nullptr;
        }
        arr.push_back(std::move(j));
    }
    return arr;
}

nlohmann::ordered_json reference_json(const analysis::ReferenceComparison& c) {
    auto diffs = nlohmann::ordered_json::array();
    for (const auto& d : c.differences) diffs.push_back({{"key", d.key}, {"run", d.run}, {"row", d.row}});
    return {{"id", c.row.id},
            {"source", c.row.source},
            {"convention", c.reproduced.convention},
            {"row_tokens_per_s_per_gpu", c.row.tokens_per_s_per_gpu},
            {"row_tflops_per_gpu", c.row.tflops_per_gpu},
            {"row_step_time_s", c.row_step_time_s},
            {"row_reproduced_tflops_per_gpu",
             c.reproduced.tflops_per_gpu ? nlohmann::ordered_json(*c.reproduced.tflops_per_gpu) : nullptr},
            {"row_reproduced_difference", c.reproduced.difference},
            {"run_tflops_per_gpu", c.run_tflops ? nlohmann::ordered_json(*c.run_tflops) : nullptr},
            {"step_time_pct", c.step_time_pct},
            {"tokens_per_s_per_gpu_pct", c.tokens_per_s_per_gpu_pct},
            {"tflops_pct", c.run_tflops ? nlohmann::ordered_json(c.tflops_pct) : nullptr},
            {"differences", diffs}};
}

std::string differences_text(const analysis::ReferenceComparison& c) {
    if (c.differences.empty()) return "configuration: the same as the row\n";
    std::string out = "configuration differences (run / row):";
    for (const auto& d : c.differences) out += fmt::format(" {} {}/{};", d.key, d.run.empty() ? "?" : d.run, d.row);
    out.back() = '\n';
    return out;
}

}  // namespace detail
}  // namespace trainbench::report
