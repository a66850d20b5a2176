// trainbench list targets|models|frameworks|recipes|gpus: the catalog and the shipped recipes.
#include "cli/app.hpp"

#include <trainbench/recipe.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace fs = std::filesystem;

namespace trainbench::cli {

namespace {

struct ListOptions {
    std::string what;
    bool names = false;  // one name per line (for scripts and shell completion)
};

using Row = std::vector<std::string>;

void print_table(std::ostream& out, const Row& header, const std::vector<Row>& rows) {
    std::vector<std::size_t> width(header.size(), 0);
    auto measure = [&](const Row& r) {
        for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
    };
    measure(header);
    for (const Row& r : rows) measure(r);
    auto line = [&](const Row& r) {
        std::string s;
        for (std::size_t i = 0; i < r.size(); ++i) {
            s += r[i];
            if (i + 1 < r.size()) s += std::string(width[i] - r[i].size() + 2, ' ');
        }
        out << s << '\n';
    };
    line(header);
    for (const Row& r : rows) line(r);
}

// JSON with --json, bare names with --names, else an aligned table.
void emit(const ListOptions& opts, Context& ctx, const nlohmann::ordered_json& j, const Row& header,
          const std::vector<Row>& rows) {
    if (ctx.options.json) {
        print_json(ctx, j.dump(2));
    } else if (opts.names) {
        for (const Row& r : rows) ctx.out << r.front() << '\n';
    } else {
        print_table(ctx.out, header, rows);
    }
}

std::string num(double v) {
    return v == 0 ? "-" : fmt::format("{:g}", v);
}

int list_gpus(const ListOptions& opts, Context& ctx) {
    const catalog::Catalog& cat = ctx.catalog();
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    std::vector<Row> rows;
    for (const auto& entry : cat.gpus()) {
        const std::string& name = entry.first;
        const catalog::Gpu& g = entry.second;
        auto peak = [&g](catalog::Precision p) {
            auto it = g.peak_tflops_dense.find(p);
            return it == g.peak_tflops_dense.end() ? 0.0 : it->second;
        };
        using catalog::Precision;
        rows.push_back({name, g.family, num(g.memory_gib), num(peak(Precision::bf16)), num(peak(Precision::fp16)),
                        num(peak(Precision::fp8)), num(peak(Precision::tf32)), num(peak(Precision::fp32)),
                        g.display_name});
        nlohmann::ordered_json peaks = nlohmann::ordered_json::object();
        for (const auto& [p, v] : g.peak_tflops_dense) peaks[std::string(catalog::to_string(p))] = v;
        j.push_back({{"name", name},
                     {"display_name", g.display_name},
                     {"family", g.family},
                     {"memory_gib", g.memory_gib},
                     {"memory_bandwidth_gbs", g.memory_bandwidth_gbs},
                     {"peak_tflops_dense", peaks},
                     {"file", g.where.to_string()}});
    }
    emit(opts, ctx, j, {"GPU", "FAMILY", "MEMORY_GIB", "BF16", "FP16", "FP8", "TF32", "FP32", "DESCRIPTION"}, rows);
    return 0;
}

int list_targets(const ListOptions& opts, Context& ctx) {
    const catalog::Catalog& cat = ctx.catalog();
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    std::vector<Row> rows;
    for (const auto& [name, t] : cat.targets()) {
        rows.push_back({name, std::string(catalog::to_string(t.scheduler)), std::to_string(t.gpus_per_node), t.gpu,
                        t.fabric, t.container_runtime, t.description});
        j.push_back({{"name", name},
                     {"description", t.description},
                     {"cloud", t.cloud},
                     {"instance", t.instance},
                     {"scheduler", std::string(catalog::to_string(t.scheduler))},
                     {"gpus_per_node", t.gpus_per_node},
                     {"gpu", t.gpu},
                     {"fabric", t.fabric},
                     {"container_runtime", t.container_runtime},
                     {"env_count", t.env.size()},
                     {"file", t.where.file}});
    }
    emit(opts, ctx, j, {"TARGET", "SCHEDULER", "GPUS", "GPU", "FABRIC", "CONTAINER", "DESCRIPTION"}, rows);
    return 0;
}

int list_models(const ListOptions& opts, Context& ctx) {
    const catalog::Catalog& cat = ctx.catalog();
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    std::vector<Row> rows;
    for (const auto& [name, m] : cat.models()) {
        rows.push_back({name, m.family, std::to_string(m.layers), std::to_string(m.hidden), std::to_string(m.heads),
                        std::to_string(m.ffn_size()), std::to_string(m.seq_length), std::to_string(m.vocab)});
        j.push_back({{"name", name},
                     {"family", m.family},
                     {"layers", m.layers},
                     {"hidden", m.hidden},
                     {"heads", m.heads},
                     {"kv_heads", m.kv_head_count()},
                     {"ffn", m.ffn_size()},
                     {"seq_length", m.seq_length},
                     {"vocab", m.vocab},
                     {"activation", m.activation},
                     {"position", m.position},
                     {"file", m.where.file}});
    }
    emit(opts, ctx, j, {"MODEL", "FAMILY", "LAYERS", "HIDDEN", "HEADS", "FFN", "SEQ", "VOCAB"}, rows);
    return 0;
}

int list_frameworks(const ListOptions& opts, Context& ctx) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    std::vector<Row> rows;
    for (const auto& p : ctx.catalog().frameworks()) {
        std::string writes;
        for (const std::string& w : p->writes) writes += (writes.empty() ? "" : ",") + w;
        rows.push_back(
            {p->framework, p->version, std::to_string(p->all_keys().size()), writes.empty() ? "-" : writes, p->title});
        j.push_back({{"framework", p->framework},
                     {"version", p->version},
                     {"title", p->title},
                     {"schema", p->schema},
                     {"containers", p->containers},
                     {"writes", p->writes},
                     {"keys", p->all_keys().size()},
                     {"config_keys", p->config.size()},
                     {"file", p->where.file}});
    }
    emit(opts, ctx, j, {"FRAMEWORK", "VERSION", "KEYS", "WRITES", "DESCRIPTION"}, rows);
    return 0;
}

int list_recipes(const ListOptions& opts, Context& ctx) {
    const catalog::Catalog& cat = ctx.catalog();
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    std::vector<Row> rows;
    for (const fs::path& dir : ctx.data_dirs().recipes) {
        for (const fs::path& file : recipe::find_recipe_files(dir)) {
            std::string shown = file.lexically_relative(dir.parent_path()).string();
            try {
                recipe::Recipe r = recipe::load_recipe(file, cat);
                rows.push_back({shown, r.name, r.target_name, r.model.name, r.framework, std::to_string(r.nodes),
                                std::to_string(r.total_gpus())});
                j.push_back({{"path", file.string()},
                             {"name", r.name},
                             {"target", r.target_name},
                             {"model", r.model.name},
                             {"framework", r.framework},
                             {"nodes", r.nodes},
                             {"gpus", r.total_gpus()},
                             {"valid", true}});
            } catch (const InputError& e) {
                rows.push_back({shown, "(invalid)", "-", "-", "-", "-", "-"});
                j.push_back({{"path", file.string()}, {"valid", false}, {"error", e.what()}});
            }
        }
    }
    emit(opts, ctx, j, {"RECIPE", "NAME", "TARGET", "MODEL", "FRAMEWORK", "NODES", "GPUS"}, rows);
    return 0;
}

int run_list(const ListOptions& opts, Context& ctx) {
    if (opts.what == "gpus") return list_gpus(opts, ctx);
    if (opts.what == "targets") return list_targets(opts, ctx);
    if (opts.what == "models") return list_models(opts, ctx);
    if (opts.what == "frameworks") return list_frameworks(opts, ctx);
    return list_recipes(opts, ctx);
}

}  // namespace

void setup_list_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<ListOptions>();
    CLI::App* cmd =
        root.add_subcommand("list", "List catalog targets, models, GPUs, framework versions, or the shipped recipes");
    cmd->add_option("what", opts->what, "What to list: targets, models, frameworks, recipes or gpus")
        ->required()
        ->check(CLI::IsMember({"targets", "models", "frameworks", "recipes", "gpus"}));
    cmd->add_flag("--names", opts->names, "Only the names, one per line (for scripts and shell completion)");
    cmd->footer(R"TXT(Examples:
  trainbench list targets
  trainbench list models --json
  trainbench list gpus              # memory and dense peak TFLOPS per precision
  trainbench list frameworks        # framework versions whose launch lines validate checks
  trainbench list recipes --recipes ~/my-recipes)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_list(*opts, ctx); }; });
}

}  // namespace trainbench::cli
