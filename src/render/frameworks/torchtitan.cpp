// TorchTitan v0.2.2: `torchrun ... -m torchtitan.train --job.config_file <toml>`, one torchrun
// per node (as its run_train.sh starts it), with the TOML job config rendered from the recipe.
//
// The TOML: [job] description; [metrics] every step printed, no colour codes, no TensorBoard;
// [model] the flavour (torchtitan_model.cpp), the tokenizer's Hugging Face assets folder, the
// float8 / MX converters of the recipe's precision; [lr_scheduler] warm-up 1/5 of the steps (as
// job_config.py advises); [training] the batch (local_batch_size = batch.micro and
// global_batch_size = batch.global, TorchTitan accumulating the difference; with pipeline
// parallelism local_batch_size is the data-parallel rank's whole batch, cut into microbatches of
// batch.micro), the model's sequence, the steps, the parameter dtype, the data; [parallelism]
// FSDP over the data-parallel ranks, tensor, pipeline (Interleaved1F1B with a virtual pipeline),
// context, expert; [checkpoint] off; [activation_checkpoint] the recompute granularity;
// [compile] off; [quantize.*] the float8 / MX settings. Then framework_config's keys (each
// checked against the version's profile; keys the recipe owns are refused), and
// launch.extra_args as `--section.key` overrides after the file. The dump folder is the run's
// own (logs/<stage>/torchtitan), given on the command line because TOML cannot name a variable.
#include "render/frameworks/framework.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace trainbench::render {

namespace {

using nlohmann::ordered_json;

constexpr const char* k_workdir = "/workspace/torchtitan";  // a checkout of torchtitan v0.2.2
constexpr const char* k_config_name = "torchtitan.toml";

std::string workdir(const recipe::Recipe& r) {
    return r.launch.workdir.empty() ? std::string(k_workdir) : r.launch.workdir;
}

// ---------------------------------------------------------------- TOML text

std::string toml_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        unsigned char u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\')
            out += fmt::format("\\{}", c);
        else if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (u < 0x20 || u == 0x7f)
            out += fmt::format("\\u{:04X}", static_cast<unsigned>(u));
        else
            out += c;
    }
    return out + "\"";
}

std::string toml_value(const ordered_json& v) {
    if (v.is_string()) return toml_string(v.get<std::string>());
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    if (v.is_number_integer()) return v.dump();
    if (v.is_number_float()) {
        double d = v.get<double>();
        std::string t = number_text(d);
        if (!std::isfinite(d)) return d != d ? "nan" : (d > 0 ? "inf" : "-inf");
        return t.find_first_of(".eE") == std::string::npos ? t + ".0" : t;
    }
    if (v.is_array()) {
        std::vector<std::string> items;
        for (const ordered_json& e : v) items.push_back(toml_value(e));
        return fmt::format("[{}]", fmt::join(items, ", "));
    }
    // null and maps: TOML has no null, and the config is flat; a recipe value of that kind is
    // refused by validate (the profile's types) before anything renders
    throw InputError(fmt::format("a TorchTitan config value cannot be {}", v.is_null() ? "null" : "a table"),
                     "a string, number, boolean or list");
}

// Flat keys grouped into their tables ("a.b.c" is key c of [a.b]), tables in first-use order.
std::string toml_text(const ordered_json& flat, const std::string& header) {
    std::vector<std::string> tables;
    for (const auto& [key, value] : flat.items()) {
        std::string table = key.substr(0, key.rfind('.'));
        if (std::find(tables.begin(), tables.end(), table) == tables.end()) tables.push_back(table);
    }
    std::string out = header;
    for (const std::string& table : tables) {
        out += fmt::format("\n[{}]\n", table);
        for (const auto& [key, value] : flat.items())
            if (key.substr(0, key.rfind('.')) == table)
                out += fmt::format("{} = {}\n", key.substr(key.rfind('.') + 1), toml_value(value));
    }
    return out;
}

// ---------------------------------------------------------------- the config

void set_model(ordered_json& c, const recipe::Recipe& r, const TorchtitanFlavor& fl) {
    c["job.description"] = r.name.empty() ? r.model.name : r.name;
    c["metrics.log_freq"] = 1;
    c["metrics.disable_color_printing"] = true;
    c["metrics.enable_tensorboard"] = false;
    c["model.name"] = fl.name;
    c["model.flavor"] = fl.flavor;
    c["model.hf_assets_path"] = fmt::format("{}/assets/hf/{}", workdir(r), fl.hf_assets);
    const bool moe = fl.experts > 0;
    if (r.precision == catalog::Precision::fp8)
        c["model.converters"] = moe ? ordered_json{"quantize.linear.float8", "quantize.grouped_mm.float8"}
                                    : ordered_json{"quantize.linear.float8"};
    else if (r.precision == catalog::Precision::mxfp8)
        c["model.converters"] =
            moe ? ordered_json{"quantize.linear.mx", "quantize.grouped_mm.mx"} : ordered_json{"quantize.linear.mx"};
    c["lr_scheduler.warmup_steps"] = std::max(1, r.steps / 5);
}

void set_training(ordered_json& c, const recipe::Recipe& r, int dp) {
    const bool pipelined = r.parallelism.pipeline > 1;
    if (r.data.kind == "mock") {  // TorchTitan's own C4 sample, read from the checkout (no download)
        c["training.dataset"] = "c4_test";
        c["training.dataset_path"] = workdir(r) + "/tests/assets/c4_test";
    }
    c["training.local_batch_size"] = pipelined ? r.batch.global / dp : r.batch.micro;
    c["training.global_batch_size"] = r.batch.global;
    c["training.seq_len"] = r.model.seq_length;
    c["training.steps"] = r.steps;
    const bool fp32 = r.precision == catalog::Precision::fp32 || r.precision == catalog::Precision::tf32;
    c["training.mixed_precision_param"] = fp32 ? "float32" : "bfloat16";
}

void set_parallelism(ordered_json& c, const recipe::Recipe& r, int dp, bool moe) {
    const recipe::Parallelism& p = r.parallelism;
    c["parallelism.data_parallel_replicate_degree"] = 1;
    c["parallelism.data_parallel_shard_degree"] = dp;
    c["parallelism.tensor_parallel_degree"] = std::max(1, p.tensor);
    c["parallelism.pipeline_parallel_degree"] = std::max(1, p.pipeline);
    if (p.pipeline > 1) {
        const bool interleaved = p.virtual_pipeline > 1;
        c["parallelism.pipeline_parallel_schedule"] = interleaved ? "Interleaved1F1B" : "1F1B";
        c["parallelism.pipeline_parallel_microbatch_size"] = r.batch.micro;
        if (interleaved && r.model.layers % (p.pipeline * p.virtual_pipeline) == 0)
            c["parallelism.pipeline_parallel_layers_per_stage"] = r.model.layers / (p.pipeline * p.virtual_pipeline);
    }
    c["parallelism.context_parallel_degree"] = std::max(1, p.context);
    if (moe) {
        c["parallelism.expert_parallel_degree"] = std::max(1, p.expert);
        c["parallelism.expert_tensor_parallel_degree"] = std::max(1, p.expert_tensor);
    }
}

void set_memory_and_precision(ordered_json& c, const recipe::Recipe& r, bool moe) {
    c["checkpoint.enable"] = false;
    const std::string& g = r.recompute.granularity;
    c["activation_checkpoint.mode"] = g == "full" ? "full" : g == "selective" ? "selective" : "none";
    if (g == "selective") c["activation_checkpoint.selective_ac_option"] = "op";
    c["compile.enable"] = false;
    if (r.precision == catalog::Precision::fp8) {
        // tensorwise scaling with float8 all-gathers, as job_config.py recommends for it
        c["quantize.linear.float8.recipe_name"] = "tensorwise";
        c["quantize.linear.float8.enable_fsdp_float8_all_gather"] = true;
        c["quantize.linear.float8.precompute_float8_dynamic_scale_for_fsdp"] = true;
        c["quantize.linear.float8.filter_fqns"] = moe ? ordered_json{"output", "router.gate"} : ordered_json{"output"};
        if (moe) c["quantize.grouped_mm.float8.fqns"] = ordered_json{"experts"};
    } else if (r.precision == catalog::Precision::mxfp8) {
        c["quantize.linear.mx.recipe_name"] = "mxfp8_cublas";
        c["quantize.linear.mx.filter_fqns"] = moe ? ordered_json{"output", "router.gate"} : ordered_json{"output"};
        if (moe) {
            c["quantize.grouped_mm.mx.recipe_name"] = "mxfp8";
            c["quantize.grouped_mm.mx.fqns"] = ordered_json{"experts"};
        }
    }
}

}  // namespace

catalog::EnvList torchtitan_env(const recipe::Recipe& r) {
    // the checkout is the package (run_train.sh runs from it; dgxc puts it on PYTHONPATH), and
    // both run_train.sh and dgxc's launch set expandable segments
    return {{"PYTHONPATH", workdir(r)}, {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}};
}

FrameworkLaunch torchtitan_launch(const Facts& f) {
    const recipe::Recipe& r = f.r;
    refuse_unsupported_model(r);
    const TorchtitanFlavor* fl = torchtitan_flavor(r);
    if (!fl) throw InputError(fmt::format("TorchTitan defines no flavour for model '{}'", r.model.name), "");
    const int dp = data_parallel_size(r, f.world_size);
    const bool moe = fl->experts > 0;
    ordered_json c = ordered_json::object();
    set_model(c, r, *fl);
    set_training(c, r, dp);
    set_parallelism(c, r, dp, moe);
    set_memory_and_precision(c, r, moe);
    for (const auto& [key, value] : r.framework_config.items()) c[key] = value;  // in place, or appended

    FrameworkLaunch out;
    out.config_file = k_config_name;
    std::string version = r.framework_version.empty() ? std::string() : " " + r.framework_version;
    out.files.push_back(RenderedFile{
        out.config_file,
        toml_text(c,
                  fmt::format("# TorchTitan{} job config rendered by trainbench from recipe '{}'.\n", version, r.name)),
        false});
    for (const auto& [key, value] : c.items()) out.config_keys.push_back(key);
    out.config_values = c;
    for (const char* w : {"-m", "torchtitan.train", "--job.config_file"}) out.program.emplace_back(w);
    out.program.push_back(ShellWord(f.config_dir).lit(std::string("/") + k_config_name));
    out.program.emplace_back("--job.dump_folder");
    out.program.push_back(run_path(f.log_dir + "/torchtitan"));
    for (const std::string& word : r.launch.extra_args) out.program.emplace_back(word);
    return out;
}

}  // namespace trainbench::render
