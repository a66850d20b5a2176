// render(): the files of every stage, from the template families the
// target's scheduler uses.
#include "render/escape.hpp"
#include "render/template_engine.hpp"

#include <trainbench/render.hpp>

#include <fmt/format.h>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainbench::render {

namespace {

bool is_script(const fs::path& p) {
    return output_kind_for(p) == OutputKind::shell;
}

std::string yaml_scalar(const ordered_json& v) {
    if (v.is_string()) return yaml_quote(v.get<std::string>());
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    return v.dump();
}

// The training configuration a Kubernetes ConfigMap carries: what runs, at
// which size and shape, and the exact launch argv.
std::string training_config(const recipe::Recipe& r, const ordered_json& c) {
    const catalog::Model& m = r.model;
    std::string out;
    out += "# trainbench training configuration (rendered; the job runs launch.sh)\n";
    out += "recipe: " + yaml_quote(r.name) + "\n";
    out += "stage: " + yaml_quote(c["stage"].get<std::string>()) + "\n";
    out += "framework: " + yaml_quote(r.framework) + "\n";
    out += "target: " + yaml_quote(r.target.name) + "\n";
    out += "model:\n";
    out += "  name: " + yaml_quote(c["model_name"].get<std::string>()) + "\n";
    out += fmt::format("  layers: {}\n  hidden: {}\n  heads: {}\n  ffn: {}\n  seq_length: {}\n  vocab: {}\n", m.layers,
                       m.hidden, m.heads, m.ffn_size(), m.seq_length, m.vocab);
    out += fmt::format("nodes: {}\ngpus_per_node: {}\n", c["nodes"].get<int>(), c["gpus_per_node"].get<int>());
    out += fmt::format(
        "parallelism: {{tensor: {}, pipeline: {}, virtual_pipeline: {}, context: {}, sequence_parallel: {}}}\n",
        r.parallelism.tensor, r.parallelism.pipeline, r.parallelism.virtual_pipeline, r.parallelism.context,
        r.parallelism.sequence_parallel ? "true" : "false");
    out += fmt::format("batch: {{micro: {}, global: {}}}\n", r.batch.micro, r.batch.global);
    out += "precision: " + yaml_quote(c["precision"].get<std::string>()) + "\n";
    out += fmt::format("steps: {}\n", r.steps);
    out += "launch_argv:\n";
    for (const auto& w : c["launch_argv"]) out += "  - " + yaml_scalar(w) + "\n";
    return out;
}

void render_family(const TemplateEngine& engine, const std::string& family, const fs::path& out_prefix,
                   const ordered_json& context, RenderedJob& job, const std::vector<fs::path>& skip = {}) {
    std::vector<fs::path> files = engine.list(family);
    if (files.empty())
        throw InputError(fmt::format("no templates for '{}' in any template directory", family),
                         "check --templates and TRAINBENCH_TEMPLATES");
    files.erase(
        std::remove_if(files.begin(), files.end(),
                       [&](const fs::path& rel) { return std::find(skip.begin(), skip.end(), rel) != skip.end(); }),
        files.end());
    std::vector<fs::path> paths;
    for (const fs::path& rel : files) paths.push_back(fs::path(family) / rel);
    std::vector<std::string> contents = engine.render_all(paths, context);
    for (std::size_t i = 0; i < files.size(); ++i)
        job.files.push_back(
            RenderedFile{(out_prefix / files[i]).lexically_normal(), std::move(contents[i]), is_script(files[i])});
}

// The manifests and the Helm chart of a Kubernetes stage. launch.sh is rendered first: the
// ConfigMap of both carries it, with the training config and the delivered files.
void render_kubernetes(const TemplateEngine& engine, const recipe::Recipe& recipe,
                       const std::vector<RenderedFile>& delivered, ordered_json& context, RenderedJob& job) {
    std::string launch = engine.render("kubernetes/launch.sh", context);
    context["kubernetes"]["launch_script_yaml"] = yaml_block(launch, 4);
    std::string config = training_config(recipe, context);
    context["kubernetes"]["training_config_yaml"] = yaml_block(config, 4);
    ordered_json config_files = ordered_json::array();
    for (const RenderedFile& file : delivered) {
        config_files.push_back({{"name", file.path.string()}, {"content_yaml", yaml_block(file.content, 4)}});
        job.files.push_back(RenderedFile{"chart/files/config" / file.path, file.content, false});
    }
    context["kubernetes"]["config_files"] = config_files;
    job.files.push_back(RenderedFile{"launch.sh", launch, true});
    render_family(engine, "kubernetes", {}, context, job, {"launch.sh"});
    render_family(engine, "helm", "chart", context, job);
    job.files.push_back(RenderedFile{"chart/files/launch.sh", launch, false});
    job.files.push_back(RenderedFile{"chart/files/training-config.yaml", config, false});
    // kubernetes.install: helm -> the backend runs `helm install` of the chart.
    job.entrypoint = recipe.kubernetes.install == "helm" ? "chart/Chart.yaml" : "manifests.yaml";
}

}  // namespace

std::shared_ptr<TemplateEngine> make_template_engine(const std::vector<fs::path>& dirs) {
    return std::make_shared<TemplateEngine>(dirs);
}

std::vector<RenderedJob> render(const recipe::Recipe& recipe, const RenderOptions& options) {
    std::shared_ptr<TemplateEngine> own;
    if (!options.engine) {
        std::vector<fs::path> dirs = options.template_dirs;
        if (dirs.empty()) dirs = default_data_dirs().templates;
        own = make_template_engine(dirs);
    }
    const TemplateEngine& engine = options.engine ? *options.engine : *own;
    std::vector<recipe::Stage> stages = effective_stages(recipe);
    std::vector<RenderedJob> jobs;
    bool found = options.stage.empty();
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const recipe::Stage& stage = stages[i];
        if (!options.stage.empty() && stage.name != options.stage) continue;
        found = true;
        ordered_json context = build_context(recipe, options, stage);
        // Files the framework delivers with the job (a NeMo config): next to the job file,
        // and on Kubernetes in the ConfigMap (manifests and chart).
        std::vector<RenderedFile> delivered;
        for (const auto& file : context["delivered_files"])
            delivered.push_back(
                RenderedFile{file["path"].get<std::string>(), file["content"].get<std::string>(), false});
        context.erase("delivered_files");
        // The keys of a delivered config (hundreds for NeMo) are for check_launch, not templates.
        for (auto& command : context["commands"]) {
            command.erase("config_keys");
            command.erase("config_values");
        }
        RenderedJob job;
        job.stage = stage.name;
        job.scheduler = recipe.target.scheduler;
        job.dependency = i == 0 ? std::string() : stage.dependency;
        job.array_size = context.value("array_size", 0);  // prepare-data array jobs (stage_context.cpp)
        switch (recipe.target.scheduler) {
            case catalog::Scheduler::slurm:
                render_family(engine, "slurm", {}, context, job);
                job.entrypoint = "job.sbatch";
                break;
            case catalog::Scheduler::local:
                render_family(engine, "local", {}, context, job);
                job.entrypoint = "run.sh";
                break;
            case catalog::Scheduler::kubernetes:
                render_kubernetes(engine, recipe, delivered, context, job);
                break;
        }
        for (RenderedFile& file : delivered) job.files.push_back(std::move(file));
        bool has_entry = std::any_of(job.files.begin(), job.files.end(),
                                     [&](const RenderedFile& f) { return f.path == job.entrypoint; });
        if (!has_entry)
            throw InputError(
                fmt::format("the templates for stage '{}' produce no '{}'", stage.name, job.entrypoint.string()));
        std::sort(job.files.begin(), job.files.end(),
                  [](const RenderedFile& a, const RenderedFile& b) { return a.path < b.path; });
        jobs.push_back(std::move(job));
    }
    if (!found) {
        std::vector<std::string> names;
        for (const recipe::Stage& s : stages) names.push_back(s.name);
        throw UsageError(fmt::format("recipe '{}' has no stage '{}'", recipe.name, options.stage),
                         did_you_mean(options.stage, names).empty() ? "stages: " + quoted_list(names, " and ")
                                                                    : did_you_mean(options.stage, names));
    }
    return jobs;
}

}  // namespace trainbench::render
