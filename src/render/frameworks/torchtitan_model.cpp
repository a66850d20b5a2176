// TorchTitan: the model flavours it defines and what a recipe asks that it cannot express.
//
// The flavours are facts of TorchTitan v0.2.2 (tag v0.2.2, 73a0e697; the PyPI wheel
// torchtitan==0.2.2 holds the same files): the `llama3_args` table of
// torchtitan/models/llama3/__init__.py (TransformerModelArgs: defaults vocab_size 128256 and the
// Llama 3 RoPE scaling 8 / 1 / 4 / 8192 in models/llama3/model/args.py; the FFN size is
// FeedForward's multiple_of * ceil(ffn_dim_multiplier * int(2 * 4 * dim / 3) / multiple_of)) and
// the `qwen3_args` table of torchtitan/models/qwen3/__init__.py (Qwen3ModelArgs with MoEArgs).
// shared/reference/torchtitan@v0.2.2 holds args.py but neither __init__.py: the conformance suite
// (tests/conformance/torchtitan_check.py) reads both tables from the installed wheel and compares
// every rendered model with them.
#include "render/frameworks/framework.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

namespace trainbench::render {

namespace {

constexpr std::array<TorchtitanFlavor, 5> k_flavors{{
    // catalog model, name, flavor, HF assets, layers, dim, heads, kv heads, head_dim, FFN, vocab, rope theta,
    // experts, top-k, expert FFN (0 = not set by the flavour)
    {"llama3.1-8b", "llama3", "8B", "Llama-3.1-8B", 32, 4096, 32, 8, 0, 14336, 128256, 500000, 0, 0, 0},
    {"llama3.1-70b", "llama3", "70B", "Llama-3.1-70B", 80, 8192, 64, 8, 0, 28672, 128256, 500000, 0, 0, 0},
    {"llama3.1-405b", "llama3", "405B", "Llama-3.1-405B", 126, 16384, 128, 8, 0, 53248, 128256, 500000, 0, 0, 0},
    {"qwen3-30b-a3b", "qwen3", "30B-A3B", "Qwen3-30B-A3B", 48, 2048, 32, 4, 128, 6144, 151936, 1000000, 128, 8, 768},
    {"qwen3-235b-a22b", "qwen3", "235B-A22B", "Qwen3-235B-A22B", 94, 4096, 64, 4, 128, 12288, 151936, 5000000, 128, 8,
     1536},
}};

// The recipe keys TorchTitan's config takes from first-class recipe keys (framework_config and
// launch.extra_args may not set them: the report, the memory check and validate read those).
constexpr std::array<std::pair<const char*, const char*>, 16> k_owned{{
    {"job.config_file", "the delivered TOML"},
    {"job.dump_folder", "the run directory (logs/<stage>/torchtitan)"},
    {"metrics.log_freq", "1: the report reads every step"},
    {"model.converters", "precision"},
    {"training.local_batch_size", "batch.micro (and batch.global with pipeline parallelism)"},
    {"training.global_batch_size", "batch.global"},
    {"training.seq_len", "model.seq_length"},
    {"training.steps", "steps"},
    {"training.mixed_precision_param", "precision"},
    {"parallelism.data_parallel_replicate_degree", "1 (the data-parallel ranks shard: FSDP)"},
    {"parallelism.data_parallel_shard_degree", "the GPUs over tensor x pipeline x context"},
    {"parallelism.tensor_parallel_degree", "parallelism.tensor"},
    {"parallelism.pipeline_parallel_degree", "parallelism.pipeline"},
    {"parallelism.context_parallel_degree", "parallelism.context"},
    {"parallelism.expert_parallel_degree", "parallelism.expert"},
    {"activation_checkpoint.mode", "recompute.granularity"},
}};

std::string title(const recipe::Recipe& r) {
    return r.profile ? r.profile->title : fmt::format("TorchTitan {}", r.framework_version);
}

std::string config_string(const recipe::Recipe& r, const std::string& key) {
    auto it = r.framework_config.find(key);
    return it != r.framework_config.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct ShapeField {
    const char* key;
    const char* upstream;
    long long want;
    long long have;
};

void shape_problems(const recipe::Recipe& r, const TorchtitanFlavor& fl, std::vector<ModelProblem>& out) {
    const catalog::Model& m = r.model;
    const int kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
    const std::vector<ShapeField> fields = {
        {"layers", "n_layers", fl.layers, m.layers},
        {"hidden", "dim", fl.hidden, m.hidden},
        {"heads", "n_heads", fl.heads, m.heads},
        {"kv_heads", "n_kv_heads", fl.kv_heads, kv},
        {"head_dim", "head_dim", fl.head_dim, fl.head_dim > 0 ? m.head_dim : 0},
        {"ffn", fl.experts > 0 ? "hidden_dim" : "the FFN size", fl.ffn, m.ffn},
        {"vocab", "vocab_size", fl.vocab, m.vocab},
        {"rope_theta", "rope_theta", fl.rope_theta, static_cast<long long>(m.rope_theta)},
        {"experts", "moe_args.num_experts", fl.experts, m.experts},
        {"moe_top_k", "moe_args.top_k", fl.top_k, fl.experts > 0 ? m.moe_top_k : 0},
        {"moe_ffn", "moe_inter_dim", fl.moe_ffn, fl.experts > 0 ? m.moe_ffn : 0},
    };
    for (const ShapeField& s : fields) {
        if (s.want == s.have) continue;
        out.push_back({"model." + std::string(s.key),
                       fmt::format("{} flavour {} '{}' has {} {}; model '{}' has {} {}", title(r), fl.name, fl.flavor,
                                   s.upstream, s.want, m.name, s.key, s.have),
                       fmt::format("{} {} (the flavour's), or a flavour with this shape (framework_config "
                                   "model.flavor)",
                                   s.key, s.want)});
    }
}

void parallel_problems(const recipe::Recipe& r, const TorchtitanFlavor* fl, std::vector<ModelProblem>& out) {
    const recipe::Parallelism& p = r.parallelism;
    if (p.tensor > 1 && !p.sequence_parallel)
        out.push_back({"parallelism.sequence_parallel",
                       fmt::format("{}'s tensor parallelism always shards the sequence of norms and dropouts "
                                   "(sequence parallelism): tensor {} without sequence_parallel cannot be expressed",
                                   title(r), p.tensor),
                       "sequence_parallel: true"});
    if (fl && std::string_view(fl->name) == "qwen3" && p.pipeline > 1)
        out.push_back(
            {"parallelism.pipeline",
             fmt::format("{} has no pipeline parallelism for qwen3 (its TrainSpec's pipelining_fn is None)", title(r)),
             "pipeline: 1"});
    if (p.expert_tensor > 1 && p.expert_tensor != p.tensor)
        out.push_back(
            {"parallelism.expert_tensor",
             fmt::format("{} takes expert_tensor_parallel_degree 1 or the tensor degree ({})", title(r), p.tensor),
             fmt::format("1 or {}", p.tensor)});
}

void recipe_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    using catalog::Precision;
    if (r.precision == Precision::fp16 || r.precision == Precision::nvfp4)
        out.push_back({"precision",
                       fmt::format("{} has no {} training: mixed_precision_param is bfloat16 or float32, and its "
                                   "converters are float8 and MX (mxfp8)",
                                   title(r), catalog::to_string(r.precision)),
                       "bf16, fp8, mxfp8, tf32 or fp32"});
    if (r.data.kind != "mock")
        out.push_back({"data",
                       fmt::format("{} reads Hugging Face text datasets (training.dataset, training.dataset_path), "
                                   "not Megatron .bin/.idx prefixes (data '{}')",
                                   title(r), r.data.kind),
                       "data: mock (TorchTitan's c4_test sample) and framework_config training.dataset_path"});
    for (const auto& [key, from] : k_owned) {
        if (r.framework_config.contains(key))
            out.push_back({"framework_config." + std::string(key),
                           fmt::format("'{}' comes from the recipe: {}", key, from), "the recipe key instead"});
        for (std::size_t i = 0; i < r.launch.extra_args.size(); ++i) {
            std::string flag = r.launch.extra_args[i].substr(0, r.launch.extra_args[i].find('='));
            std::replace(flag.begin(), flag.end(), '-', '_');
            if (flag == "__" + std::string(key))
                out.push_back({fmt::format("launch.extra_args[{}]", i),
                               fmt::format("'{}' comes from the recipe: {}", r.launch.extra_args[i], from),
                               "the recipe key instead"});
        }
    }
}

}  // namespace

const TorchtitanFlavor* torchtitan_flavor(const recipe::Recipe& r) {
    const TorchtitanFlavor* by_model = nullptr;
    for (const TorchtitanFlavor& f : k_flavors)
        if (r.model.name == f.model) by_model = &f;
    const std::string flavor = config_string(r, "model.flavor");
    if (flavor.empty()) return by_model;
    // framework_config model.flavor (and model.name) choose another flavour; the shape is checked against it
    std::string name = config_string(r, "model.name");
    if (name.empty() && by_model) name = by_model->name;
    for (const TorchtitanFlavor& f : k_flavors)
        if ((name.empty() || name == f.name) && flavor == f.flavor) return &f;
    return nullptr;
}

void torchtitan_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    torchtitan_shape_problems(r, out);
    parallel_problems(r, torchtitan_flavor(r), out);
    recipe_problems(r, out);
}

void torchtitan_shape_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    const TorchtitanFlavor* fl = torchtitan_flavor(r);
    if (!fl) {
        std::vector<std::string> names;
        for (const TorchtitanFlavor& f : k_flavors)
            names.push_back(fmt::format("{} ({} {})", f.model, f.name, f.flavor));
        std::string flavor = config_string(r, "model.flavor");
        out.push_back(
            {flavor.empty() ? "model" : "framework_config.model.flavor",
             flavor.empty()
                 ? fmt::format("{} defines no flavour trainbench knows for model '{}'", title(r), r.model.name)
                 : fmt::format("{} defines no flavour '{}' for model '{}'", title(r), flavor, r.model.name),
             fmt::format("one of {}", fmt::join(names, ", "))});
    } else {
        shape_problems(r, *fl, out);
    }
}

}  // namespace trainbench::render
