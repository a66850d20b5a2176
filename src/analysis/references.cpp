// A run under every FLOPs convention, and a run against a published row: the
// row reproduced under its own convention, the run as a percentage of it, and
// the configuration keys in which the two differ (docs/metrics.md).
#include <trainbench/analysis.hpp>

#include <fmt/format.h>

#include <cmath>

namespace trainbench::analysis {

namespace {

constexpr double k_reproduced = 0.005;  // a published row is reproduced within 0.5 %

FlopsInput run_flops_input(const RunSummary& s) {
    FlopsInput fi;
    fi.model = s.inputs.model;
    fi.seq_length = s.inputs.seq_len;
    fi.tensor_parallel = std::max(s.inputs.tensor_parallel, 1);
    return fi;
}

// TFLOPS/GPU of the run's window mean with `per_sample` FLOPs (gpu-recipes' order of operations).
double run_tflops(const RunSummary& s, double per_sample) {
    return per_sample * s.inputs.global_batch / s.stats.mean / s.inputs.gpus / 1e12;
}

}  // namespace

ReferenceCheck check_reference(const catalog::Reference& row, const catalog::Model& model) {
    ReferenceCheck c;
    const FlopsConvention& conv = find_flops_convention(row.convention);
    c.convention = std::string(conv.name);
    FlopsInput fi;
    fi.model = model;
    fi.seq_length = row.seq_length;
    fi.tensor_parallel = std::max(row.tensor, 1);
    try {
        const double per_token = conv.per_sample(fi).per_sample / row.seq_length;
        c.tflops_per_gpu = per_token * row.tokens_per_s_per_gpu / 1e12;
        c.difference = (*c.tflops_per_gpu - row.tflops_per_gpu) / row.tflops_per_gpu;
        c.within = std::fabs(c.difference) <= k_reproduced;
    } catch (const InputError& e) {
        c.problem = e.what();
    }
    return c;
}

std::vector<ConventionFigures> figures_under_every_convention(const RunSummary& s) {
    std::vector<ConventionFigures> out;
    for (const ConventionValue& v : flops_under_every_convention(run_flops_input(s))) {
        ConventionFigures f;
        f.convention = v.convention;
        f.flops = v.flops;
        f.problem = v.problem;
        if (f.flops) {
            f.tflops_per_gpu = run_tflops(s, f.flops->per_sample);
            PeakRequest pr;
            pr.convention = peak_convention(v.convention->name);
            pr.gpu_family = s.inputs.gpu_family;
            pr.precision = s.inputs.precision;
            pr.override_tflops = s.inputs.peak_override;
            if (s.inputs.gpu_family == "cpu") pr.measured_tflops = s.peak.tflops;
            if (s.inputs.catalog_gpu) pr.gpu = &*s.inputs.catalog_gpu;
            try {
                f.peak = resolve_peak(pr);
                f.mfu = f.tflops_per_gpu / f.peak->tflops;
            } catch (const Error&) {  // e.g. gpu-recipes has no peak for this GPU: TFLOPS only
            }
        }
        out.push_back(std::move(f));
    }
    return out;
}

namespace {

std::string known(int v, int unknown = 0) {
    return v == unknown ? std::string() : std::to_string(v);
}

std::vector<ConfigDifference> differences(const Inputs& in, const catalog::Reference& row) {
    const std::string precision(catalog::to_string(in.precision));
    // VP 0 and 1 both mean "not interleaved" (tables print 1 or n/a).
    auto vp = [](int v) { return v <= 1 ? std::string("-") : std::to_string(v); };
    const std::string vp_run = in.virtual_pipeline < 0 ? "" : vp(in.virtual_pipeline);
    const std::string vp_row = vp(row.virtual_pipeline);
    const bool same_gpu = row.gpu == in.gpu_family || row.gpu == in.gpu_name;
    const std::vector<ConfigDifference> all = {
        {"model", in.model.name, row.model},
        {"gpu", same_gpu ? row.gpu : (in.gpu_name.empty() ? in.gpu_family : in.gpu_name), row.gpu},
        {"gpus", known(in.gpus), std::to_string(row.gpus)},
        {"precision", precision, row.precision},
        {"global_batch", known(in.global_batch), std::to_string(row.global_batch)},
        {"micro_batch", known(in.micro_batch), row.micro_batch > 0 ? std::to_string(row.micro_batch) : ""},
        {"seq_length", known(in.seq_len), std::to_string(row.seq_length)},
        {"tensor_parallel", known(in.tensor_parallel), std::to_string(row.tensor)},
        {"pipeline_parallel", known(in.pipeline_parallel), std::to_string(row.pipeline)},
        {"context_parallel", known(in.context_parallel), std::to_string(row.context)},
        {"virtual_pipeline", vp_run, vp_row},
        {"expert_parallel", known(in.expert_parallel), std::to_string(row.expert)},
    };
    std::vector<ConfigDifference> out;
    for (const ConfigDifference& d : all)
        if (!d.row.empty() && d.run != d.row) out.push_back(d);
    return out;
}

}  // namespace

ReferenceComparison compare_with_reference(const RunSummary& s, const catalog::Reference& row,
                                           const catalog::Model& row_model) {
    ReferenceComparison c;
    c.row = row;
    c.reproduced = check_reference(row, row_model);
    c.row_step_time_s = static_cast<double>(row.global_batch) * row.seq_length / (row.tokens_per_s_per_gpu * row.gpus);
    c.step_time_pct = s.stats.mean / c.row_step_time_s * 100;
    c.tokens_per_s_per_gpu_pct = s.derived.tokens_per_s_per_gpu / row.tokens_per_s_per_gpu * 100;
    try {
        const FlopsConvention& conv = find_flops_convention(row.convention);
        c.run_tflops = run_tflops(s, conv.per_sample(run_flops_input(s)).per_sample);
        c.tflops_pct = *c.run_tflops / row.tflops_per_gpu * 100;
    } catch (const InputError&) {  // the row's convention cannot count the run's model (said in `reproduced`)
    }
    c.differences = differences(s.inputs, row);
    return c;
}

}  // namespace trainbench::analysis
