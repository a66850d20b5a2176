// NeMo: megatron_gpt_pretraining.py with a complete config file delivered with
// the job (as the NeMo launcher's --config-path/--config-name and gpu-recipes'
// ConfigMap do). The file starts from the seed's configuration for the NeMo
// version (the framework profile), then the recipe's framework_config, then
// trainbench's own values (shape, parallelism, batch, precision, steps,
// logging, data). Only values known at run time (paths under the run
// directory, the node count of a Helm release) stay Hydra overrides on the
// command line, each in the form Hydra accepts for the delivered file.
#include "render/frameworks/framework.hpp"

#include <fmt/format.h>

#include <cmath>

using nlohmann::ordered_json;

namespace trainbench::render {

namespace {

constexpr const char* k_nemo_entrypoint = "/opt/NeMo/examples/nlp/language_modeling/megatron_gpt_pretraining.py";
constexpr const char* k_config_name = "nemo-config";

// The flat configuration being built, with the profile that says which keys exist.
class Config {
public:
    Config(const recipe::Recipe& r, const catalog::FrameworkProfile& p) : m_r(r), m_p(p), m_flat(p.config) {
        for (const auto& [k, v] : r.framework_config.items()) m_flat[k] = v;
    }
    // Sets a key this version has (in the delivered file or among its known keys).
    void set(const std::string& key, ordered_json value) {
        if (!m_p.knows(key)) unsupported(key, value);
        m_flat[key] = std::move(value);
    }
    // Sets a key when the delivered file has it; when it does not, the value must be
    // NeMo's default `unset` (no key needed), or the version must know the key.
    void set_or_default(const std::string& key, ordered_json value, const ordered_json& unset) {
        if (m_flat.contains(key) || value != unset) set(key, std::move(value));
    }
    [[nodiscard]] bool has(const std::string& key) const { return m_flat.contains(key); }
    [[nodiscard]] const ordered_json& get(const std::string& key) const { return m_flat.at(key); }
    [[nodiscard]] const ordered_json& flat() const { return m_flat; }
    [[nodiscard]] const catalog::FrameworkProfile& profile() const { return m_p; }

    // The Hydra override of `key` for the delivered file: `key=v` when the file has
    // the key, `+key=v` (append) when it does not.
    [[nodiscard]] ShellWord override_word(const std::string& key, ShellWord value) const {
        if (!m_p.knows(key)) unsupported(key, value.plain());
        ShellWord w(std::string(has(key) ? "" : "+") + key + "=");
        // ShellWord has no append of another word: rebuild from the plain form's parts.
        return w.append(value);
    }

private:
    [[noreturn]] void unsupported(const std::string& key, const ordered_json& value) const {
        throw InputError(fmt::format("{} has no '{}', which this recipe needs (value {})", m_p.schema, key,
                                     value.is_string() ? value.get<std::string>() : value.dump()),
                         fmt::format("a NeMo version that has it (framework_version), or a recipe that does not "
                                     "need it (recipe {})",
                                     m_r.name));
    }
    const recipe::Recipe& m_r;
    const catalog::FrameworkProfile& m_p;
    ordered_json m_flat;
};

std::string precision_value(catalog::Precision p) {
    switch (p) {
        case catalog::Precision::bf16:
        case catalog::Precision::fp8:
        case catalog::Precision::mxfp8:
        case catalog::Precision::nvfp4:
            return "bf16";
        case catalog::Precision::fp16:
            return "16";
        case catalog::Precision::tf32:
        case catalog::Precision::fp32:
            return "32";
    }
    return "bf16";
}

// Today's architecture keys, each only where the model differs from NeMo's GPT default (the
// ones NeMo 1.x cannot express were refused before: model_support.cpp).
void set_architecture(Config& c, const catalog::Model& m) {
    if (m.norm == "rmsnorm") c.set("model.normalization", "rmsnorm");
    if (m.norm_epsilon > 0) c.set("model.layernorm_epsilon", m.norm_epsilon);
    if (!m.linear_bias) c.set("model.bias", false);
    if (!m.tied_embeddings) c.set("model.share_embeddings_and_output_weights", false);
    if (m.head_dim > 0) c.set("model.kv_channels", m.head_dim);
    if (m.rope_theta > 0) {
        const bool integral = std::floor(m.rope_theta) == m.rope_theta && m.rope_theta < 1e15;
        c.set("model.rotary_base",
              integral ? ordered_json(static_cast<long long>(m.rope_theta)) : ordered_json(m.rope_theta));
    }
}

void set_shape(Config& c, const Facts& f) {
    const recipe::Recipe& r = f.r;
    const catalog::Model& m = r.model;
    const recipe::Parallelism& p = r.parallelism;
    c.set("trainer.num_nodes", f.nodes);
    c.set("trainer.devices", f.gpus_per_node);
    c.set("trainer.max_steps", r.steps);
    c.set("trainer.precision", precision_value(r.precision));
    c.set("model.num_layers", m.layers);
    c.set("model.hidden_size", m.hidden);
    c.set("model.ffn_hidden_size", m.ffn_size());
    c.set("model.num_attention_heads", m.heads);
    c.set_or_default("model.num_query_groups",
                     m.kv_heads > 0 && m.kv_heads != m.heads ? ordered_json(m.kv_heads) : ordered_json(nullptr),
                     nullptr);
    c.set("model.encoder_seq_length", m.seq_length);
    c.set("model.max_position_embeddings", m.max_positions());
    if (c.has("model.data.seq_length")) c.set("model.data.seq_length", m.seq_length);
    if (m.activation == "swiglu") c.set("model.activation", "fast-swiglu");
    if (m.position == "rope") c.set("model.position_embedding_type", "rope");
    set_architecture(c, m);
    c.set("model.micro_batch_size", r.batch.micro);
    c.set("model.global_batch_size", r.batch.global);
    c.set("model.tensor_model_parallel_size", p.tensor);
    c.set("model.pipeline_model_parallel_size", p.pipeline);
    c.set_or_default("model.virtual_pipeline_model_parallel_size",
                     p.virtual_pipeline > 0 ? ordered_json(p.virtual_pipeline) : ordered_json(nullptr), nullptr);
    c.set_or_default("model.context_parallel_size", p.context, 1);
    c.set("model.sequence_parallel", p.sequence_parallel);
    if (c.has("exp_manager.checkpoint_callback_params.model_parallel_size"))
        c.set("exp_manager.checkpoint_callback_params.model_parallel_size", p.tensor * p.pipeline);
}

void set_precision_and_memory(Config& c, const recipe::Recipe& r) {
    c.set_or_default("model.fp8", r.precision == catalog::Precision::fp8, false);
    const recipe::Recompute& rc = r.recompute;
    if (rc.granularity == "none" || rc.granularity.empty()) {
        // The config may already say "no recomputation" its own way: full/block over 0 layers
        // (the 22.06 launcher's 126m and 5b configs); keep that as the seed has it.
        auto text = [&c](const char* key) {
            return c.has(key) && c.get(key).is_string() ? c.get(key).get<std::string>() : std::string();
        };
        bool zero_layers =
            c.has("model.activations_checkpoint_num_layers") && c.get("model.activations_checkpoint_num_layers") == 0;
        bool recomputes = text("model.activations_checkpoint_granularity") == "selective" ||
                          (text("model.activations_checkpoint_granularity") == "full" && !zero_layers);
        if (recomputes) {
            c.set("model.activations_checkpoint_granularity", nullptr);
            c.set_or_default("model.activations_checkpoint_method", nullptr, nullptr);
            c.set_or_default("model.activations_checkpoint_num_layers", nullptr, nullptr);
        }
    } else if (rc.granularity == "selective") {
        c.set("model.activations_checkpoint_granularity", "selective");
    } else {
        c.set("model.activations_checkpoint_granularity", rc.granularity);
        c.set("model.activations_checkpoint_method", rc.method);
        c.set("model.activations_checkpoint_num_layers", rc.num_layers);
    }
    c.set("model.optim.name", r.distributed_optimizer ? "distributed_fused_adam" : "fused_adam");
}

void set_data(Config& c, const recipe::Recipe& r) {
    if (r.data.kind == "mock") {
        c.set("model.data.data_impl", "mock");
        c.set("model.data.data_prefix", ordered_json::array());
    } else {
        ordered_json prefix = ordered_json::array();
        for (const recipe::DataPrefix& p : r.data.prefixes) {
            prefix.push_back(p.weight);
            prefix.push_back(p.prefix);
        }
        c.set("model.data.data_prefix", prefix);
    }
    if (!r.data.vocab_file.empty()) c.set("model.tokenizer.vocab_file", r.data.vocab_file);
    if (!r.data.merge_file.empty()) c.set("model.tokenizer.merge_file", r.data.merge_file);
}

// Benchmark settings: no checkpoints, no resume, no validation inside the measured
// steps, a step time for every step where the metrics come from a logger.
void set_benchmark(Config& c, const recipe::Recipe& r) {
    c.set("exp_manager.create_checkpoint_callback", false);
    c.set("exp_manager.resume_if_exists", false);
    if (c.has("exp_manager.wandb_logger_kwargs.name")) c.set("exp_manager.wandb_logger_kwargs.name", r.name);
    const ordered_json* every = c.has("trainer.val_check_interval") ? &c.get("trainer.val_check_interval") : nullptr;
    bool validates_inside = every == nullptr || !every->is_number_integer() || every->get<long long>() <= r.steps;
    if (validates_inside) {
        c.set("trainer.val_check_interval", r.steps);
        c.set("trainer.limit_val_batches", 0.0);
    }
    if (r.metrics.source == "tensorboard" || r.metrics.source == "dllogger") c.set("trainer.log_every_n_steps", 1);
    if (r.metrics.source == "dllogger") c.set("exp_manager.create_dllogger_logger", true);
    if (r.profiling.nsys) {
        ordered_json ranks = ordered_json::array();
        for (int rank : r.profiling.ranks) ranks.push_back(rank);
        c.set("model.nsys_profile.enabled", true);
        c.set("model.nsys_profile.start_step", r.profiling.start_step);
        c.set("model.nsys_profile.end_step", r.profiling.end_step);
        c.set("model.nsys_profile.ranks", ranks);
    }
}

// ---------------------------------------------------------------- the YAML file

std::string scalar_text(const ordered_json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    if (v.is_number_integer()) return v.dump();
    if (v.is_number_float()) {
        double d = v.get<double>();
        std::string t = fmt::format("{}", d);
        // Keep it a float for YAML: "1" -> "1.0", "6e-05" -> "6.0e-05".
        if (t.find_first_of(".en") == std::string::npos) t += ".0";
        std::size_t e = t.find('e');
        if (e != std::string::npos && t.find('.') == std::string::npos) t.insert(e, ".0");
        return t;
    }
    if (v.is_string()) {
        // OmegaConf reads "${...}" as an interpolation: a recipe value is always literal text.
        std::string s = v.get<std::string>();
        std::string escaped;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '{') escaped += '\\';
            escaped += s[i];
        }
        return yaml_quote(escaped);
    }
    if (v.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + scalar_text(v[i]);
        return out + "]";
    }
    if (v.is_object() && v.empty()) return "{}";
    return yaml_quote(v.dump());
}

// Nests "a.b.c" keys (in order) and writes block-style YAML.
std::string config_yaml(const ordered_json& flat, const recipe::Recipe& r, const catalog::FrameworkProfile& p) {
    ordered_json tree = ordered_json::object();
    for (const auto& [key, value] : flat.items()) {
        ordered_json* node = &tree;
        std::size_t start = 0;
        while (true) {
            std::size_t dot = key.find('.', start);
            std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
            if (dot == std::string::npos) {
                (*node)[part] = value;
                break;
            }
            ordered_json& next = (*node)[part];
            if (next.is_null()) next = ordered_json::object();
            if (!next.is_object())
                throw InputError(fmt::format("framework_config: '{}' is set both as a value and as a map", key));
            node = &next;
            start = dot + 1;
        }
    }
    std::string out = fmt::format(
        "# NeMo configuration of recipe {}, rendered by trainbench for {}.\n"
        "# The seed's configuration for this version, the recipe's framework_config, then trainbench's\n"
        "# values; the job passes it with --config-path/--config-name.\n",
        r.name, p.title);
    auto emit = [&out](const auto& self, const ordered_json& node, int indent) -> void {
        for (const auto& [k, v] : node.items()) {
            out += std::string(static_cast<std::size_t>(indent), ' ') + k + ":";
            if (v.is_object() && !v.empty()) {
                out += "\n";
                self(self, v, indent + 2);
            } else {
                out += " " + scalar_text(v) + "\n";
            }
        }
    };
    emit(emit, tree, 0);
    return out;
}

}  // namespace

FrameworkLaunch nemo_launch(const Facts& f) {
    const recipe::Recipe& r = f.r;
    refuse_unsupported_model(r);
    if (!r.profile)
        throw InputError(
            fmt::format("recipe '{}': framework 'nemo' needs framework_version (the NeMo container "
                        "version, whose configuration the job starts from)",
                        r.name));
    Config c(r, *r.profile);
    set_shape(c, f);
    set_precision_and_memory(c, r);
    set_data(c, r);
    set_benchmark(c, r);

    FrameworkLaunch out;
    out.config_file = std::string(k_config_name) + ".yaml";
    out.files.push_back(RenderedFile{out.config_file, config_yaml(c.flat(), r, *r.profile), false});
    for (const auto& [key, value] : c.flat().items()) out.config_keys.push_back(key);
    out.program.emplace_back(entry_point(r, "", k_nemo_entrypoint));
    Args a;
    ShellWord path("--config-path=");
    a.push_back(group(path.append(f.config_dir)));
    a.push_back(group(std::string("--config-name=") + k_config_name));
    // Values known only where the job runs.
    a.push_back(group(c.override_word("exp_manager.explicit_log_dir", run_path(f.log_dir + "/nemo"))));
    if (f.scheduler == catalog::Scheduler::kubernetes)
        a.push_back(group(c.override_word("trainer.num_nodes", word_with_var("", "NNODES"))));
    if (r.metrics.source == "dllogger") {
        a.push_back(group(c.override_word("exp_manager.dllogger_logger_kwargs.json_file", run_path(f.dllogger_file))));
        auto module = r.profile->format_modules.find("dllogger");
        if (module != r.profile->format_modules.end())
            out.requires_modules.emplace_back(module->second,
                                              "exp_manager.create_dllogger_logger (metrics.source: dllogger)");
    }
    append_args(out.program, a, r.launch.extra_args);
    return out;
}

// The NeMo that tokenizes for a prepare-data stage: the container's release (the last YY.MM in
// the image name: "nemo:24.05", "nemo+24.05.sqsh"), else the recipe's own NeMo.
std::string nemo_preprocess_version(const recipe::Recipe& r, const std::string& image) {
    std::string version = r.framework == "nemo" ? r.framework_version : std::string();
    auto digit = [&image](std::size_t i) { return image[i] >= '0' && image[i] <= '9'; };
    for (std::size_t i = 0; i + 5 <= image.size(); ++i)
        if (digit(i) && digit(i + 1) && image[i + 2] == '.' && digit(i + 3) && digit(i + 4) &&
            (i == 0 || !digit(i - 1)) && (i + 5 == image.size() || !digit(i + 5)))
            version = image.substr(i, 5);
    return version;
}

// NeMo runs with one CUDA connection when it splits layers over tensor or context ranks.
catalog::EnvList nemo_env(const recipe::Recipe& r) {
    if (r.parallelism.tensor > 1 || r.parallelism.context > 1) return {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
    return {};
}

}  // namespace trainbench::render
