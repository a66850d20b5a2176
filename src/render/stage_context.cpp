// Context of the validate stage (DCGM diagnostics, nccl-tests over all nodes
// and node pairs) and of the prepare-data stage (Pile / SlimPajama array jobs).
#include "render/stage_context.hpp"

#include "render/escape.hpp"
#include "render/frameworks/framework.hpp"
#include "render/shell_word.hpp"

#include <fmt/format.h>

#include <algorithm>

using nlohmann::ordered_json;

namespace trainbench::render {

nlohmann::ordered_json plain_words(const std::vector<ShellWord>& words) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const ShellWord& w : words) out.push_back(w.plain());
    return out;
}

// Shell words with each "--flag" (and its values) on a continued line of its own.
std::string join_shell_lines(const std::vector<ShellWord>& words, const std::string& indent) {
    std::string out;
    for (const ShellWord& w : words) {
        std::string text = w.shell();
        if (out.empty())
            out = text;
        else if (text.rfind("--", 0) == 0)
            out += " \\\n" + indent + text;
        else
            out += " " + text;
    }
    return out;
}

std::string join_shell(const std::vector<ShellWord>& words) {
    std::string out;
    for (const ShellWord& w : words) out += (out.empty() ? "" : " ") + w.shell();
    return out;
}

// pyxis flags for an srun in a container (empty when no image).
std::vector<ShellWord> container_flags(const std::string& image, const std::vector<std::string>& mounts) {
    std::vector<ShellWord> w;
    if (image.empty()) return w;
    w.emplace_back("--container-image=" + image);
    ShellWord m("--container-mounts=");
    for (std::size_t i = 0; i < mounts.size(); ++i) m.lit((i ? "," : "") + mounts[i]);
    m.lit(mounts.empty() ? "" : ",").var(k_run_dir_var).lit(":").var(k_run_dir_var);
    w.push_back(m);
    w.emplace_back("--no-container-mount-home");
    return w;
}

ordered_json env_json(const catalog::EnvList& env) {
    ordered_json out = ordered_json::array();
    for (const auto& [name, value] : env) {
        bool ok =
            !name.empty() && !(name[0] >= '0' && name[0] <= '9') && std::all_of(name.begin(), name.end(), [](char ch) {
                return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
            });
        if (!ok) throw InputError(fmt::format("environment variable name '{}' is not a valid name", name));
        out.push_back({{"name", name}, {"value_sh", shell_escape(value)}});
    }
    return out;
}

namespace {

std::string parent_dir(const std::string& path) {
    std::size_t slash = path.rfind('/');
    return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

// Whether a mount "host:container[:flags]" in `mounts` already shows `dir` at the same path.
bool covered_by(const std::vector<std::string>& mounts, const std::string& dir) {
    for (const std::string& m : mounts) {
        std::string host = m.substr(0, m.find(':'));
        std::string rest = m.substr(m.find(':') + 1);
        std::string target = rest.substr(0, rest.find(':'));
        if (host == target && (dir == host || dir.rfind(host + "/", 0) == 0)) return true;
    }
    return false;
}

std::string array_spec_of(const std::vector<int>& indices, int throttle) {
    std::string spec;
    std::size_t i = 0;
    while (i < indices.size()) {
        std::size_t j = i;
        while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
        spec += (spec.empty() ? "" : ",") +
                (i == j ? std::to_string(indices[i]) : fmt::format("{}-{}", indices[i], indices[j]));
        i = j + 1;
    }
    if (throttle > 0) spec += fmt::format("%{}", throttle);
    return spec;
}

// The array task indices of a prepare-data stage: shards, chunks or a plain count.
std::vector<int> prepare_indices(const recipe::Stage& stage, const recipe::PrepareDataOptions& p) {
    std::vector<int> indices;
    if (stage.kind != "prepare-data") return indices;
    if (p.dataset == "pile") {
        indices = recipe::parse_shards(p.shards);
    } else if (p.dataset == "slimpajama") {
        for (int i = 0; i < p.chunks; ++i) indices.push_back(i);
    } else {
        for (int i = 0; i < p.array; ++i) indices.push_back(i);
    }
    return indices;
}

// A prepare-data stage's own partition and time replace the recipe's in #SBATCH lines.
void override_slurm_partition_and_time(const recipe::Stage& stage, const recipe::PrepareDataOptions& p,
                                       ordered_json& c) {
    if (stage.kind != "prepare-data" || !c.contains("slurm")) return;
    if (!p.partition.empty()) {
        c["slurm"]["partition"] = p.partition;
        c["slurm"]["has_partition"] = true;
    }
    if (!p.time.empty()) {
        c["slurm"]["time"] = p.time;
        c["slurm"]["has_time"] = true;
    }
}

// Tokenization into Megatron .bin/.idx (NeMo's preprocess_data_for_megatron.py in the image).
std::vector<ShellWord> preprocess_command(const recipe::PrepareDataOptions& p) {
    return {"python3",
            p.nemo_dir + "/scripts/nlp_language_modeling/preprocess_data_for_megatron.py",
            "--input",
            word_with_var("", "TB_INPUT"),
            "--json-keys",
            "text",
            "--tokenizer-library",
            "megatron",
            "--tokenizer-type",
            p.tokenizer_type,
            "--vocab-file",
            p.vocab_file,
            "--merge-file",
            p.merge_file,
            "--output-prefix",
            word_with_var("", "TB_TMP_PREFIX"),
            "--dataset-impl",
            "mmap",
            "--append-eod",
            "--workers",
            std::to_string(p.tasks_per_node)};
}

// c["prepare"]: the prepare-data stage's values for the templates.
ordered_json prepare_json(const recipe::PrepareDataOptions& p) {
    // The container sees the data where the host has it: data_dir, output_dir and the tokenizer files.
    std::vector<std::string> data_mounts = p.mounts;
    for (const std::string& dir : {p.data_dir, p.output_dir, parent_dir(p.vocab_file), parent_dir(p.merge_file)})
        if (!dir.empty() && !covered_by(data_mounts, dir)) data_mounts.push_back(dir + ":" + dir);
    std::vector<ShellWord> srun{"srun", "--ntasks=1"};
    for (ShellWord& w : container_flags(p.image, data_mounts)) srun.push_back(std::move(w));
    std::vector<std::string> pre_mounts = data_mounts;
    for (const std::string& m : p.preprocess_mounts) pre_mounts.push_back(m);
    std::vector<ShellWord> pre_srun{"srun", "--ntasks=1"};
    for (ShellWord& w : container_flags(p.image, pre_mounts)) pre_srun.push_back(std::move(w));
    std::vector<ShellWord> preprocess = preprocess_command(p);
    return {{"dataset", p.dataset},
            {"image", p.image},
            {"preprocess_sh", join_shell_lines(preprocess, "  ")},
            {"preprocess_argv", plain_words({preprocess.begin() + 1, preprocess.end()})},
            {"pile", p.dataset == "pile"},
            {"slimpajama", p.dataset == "slimpajama"},
            {"data_dir", p.data_dir},
            {"output_dir", p.output_dir},
            {"srun_sh", join_shell(srun)},
            {"preprocess_srun_sh", join_shell(pre_srun)},
            {"download", p.download},
            {"extract", p.extract},
            {"concat", p.concat},
            {"preprocess", p.preprocess},
            {"rm_downloaded", p.rm_downloaded},
            {"rm_extracted", p.rm_extracted},
            {"tokenizer_type", p.tokenizer_type},
            {"vocab_file", p.vocab_file},
            {"merge_file", p.merge_file},
            {"url", p.url},
            {"vocab_url", p.vocab_url},
            {"merges_url", p.merges_url},
            {"retries", p.retries},
            {"retry_delay", p.retry_delay},
            {"chunks", p.chunks},
            {"tasks_per_node", p.tasks_per_node},
            {"download_chunks", p.download_chunks},
            {"download_shards", p.download_shards},
            {"env", env_json(p.env)},
            {"has_env", !p.env.empty()}};
}

}  // namespace

void add_stage_context(const recipe::Recipe& r, const recipe::Stage& stage, catalog::Scheduler scheduler,
                       int gpus_per_node, ordered_json& c) {
    c["has_array"] = false;
    c["array_spec_sh"] = "";
    c["array_size"] = 0;
    const std::string log_dir = "logs/" + stage.name;

    c["validate"] =
        validate_context(r, stage.kind == "validate" ? recipe::validate_options(r, stage) : recipe::ValidateOptions{},
                         log_dir, gpus_per_node);

    recipe::PrepareDataOptions p =
        stage.kind == "prepare-data" ? recipe::prepare_data_options(r, stage) : recipe::PrepareDataOptions{};
    std::vector<int> indices = prepare_indices(stage, p);
    override_slurm_partition_and_time(stage, p, c);
    if (!indices.empty() && scheduler == catalog::Scheduler::slurm) {
        c["has_array"] = true;
        c["array_spec_sh"] = array_spec_of(indices, p.nodes);
        c["array_size"] = static_cast<int>(indices.size());
    }
    c["prepare"] = prepare_json(p);
}

}  // namespace trainbench::render
