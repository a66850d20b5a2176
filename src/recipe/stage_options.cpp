// Stage options read into typed structs with their defaults (validate, prepare-data), and the
// data a prepare-data stage leaves for training. The schemas they are checked against: stages.cpp.
#include "recipe/stage_options.hpp"

#include <trainbench/recipe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

using nlohmann::ordered_json;

namespace trainbench::recipe {

std::string value_text(const ordered_json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

const ordered_json* find_path(const ordered_json& o, std::string_view path) {
    const ordered_json* cur = &o;
    std::size_t start = 0;
    while (true) {
        if (!cur->is_object()) return nullptr;
        std::size_t dot = path.find('.', start);
        std::string key(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        auto it = cur->find(key);
        if (it == cur->end()) return nullptr;
        cur = &*it;
        if (dot == std::string_view::npos) return cur;
        start = dot + 1;
    }
}

namespace {

struct Reader {
    const ordered_json& o;
    void get(std::string_view path, bool& out) const {
        if (const auto* v = find_path(o, path); v && v->is_boolean()) out = v->get<bool>();
    }
    void get(std::string_view path, int& out) const {
        if (const auto* v = find_path(o, path); v && v->is_number_integer()) out = v->get<int>();
    }
    void get(std::string_view path, double& out) const {
        if (const auto* v = find_path(o, path); v && v->is_number()) out = v->get<double>();
    }
    void get(std::string_view path, std::string& out) const {
        if (const auto* v = find_path(o, path); v && (v->is_string() || v->is_number())) out = value_text(*v);
    }
    void get(std::string_view path, std::vector<std::string>& out) const {
        if (const auto* v = find_path(o, path); v && v->is_array()) {
            out.clear();
            for (const auto& e : *v) out.push_back(value_text(e));
        }
    }
    void get(std::string_view path, catalog::EnvList& out) const {
        if (const auto* v = find_path(o, path); v && v->is_object())
            for (const auto& [k, e] : v->items())
                out.emplace_back(k, e.is_boolean() ? (e.get<bool>() ? "true" : "false") : value_text(e));
    }
};

std::string trim_slash(std::string s) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

}  // namespace

ValidateOptions validate_options(const Recipe& r, const Stage& stage) {
    ValidateOptions v;
    const ordered_json empty = ordered_json::object();
    Reader rd{stage.options.is_object() ? stage.options : empty};
    rd.get("nodes", v.nodes);
    if (v.nodes <= 0) v.nodes = std::max(1, r.nodes);
    rd.get("reuse_hours", v.reuse_hours);
    rd.get("dcgm.enabled", v.dcgm.enabled);
    rd.get("dcgm.level", v.dcgm.level);
    rd.get("dcgm.binary", v.dcgm.binary);
    rd.get("dcgm.image", v.dcgm.image);
    rd.get("dcgm.time", v.dcgm.time);
    NcclTestOptions& n = v.nccl;
    rd.get("nccl.enabled", n.enabled);
    rd.get("nccl.tests", n.tests);
    rd.get("nccl.min_bytes", n.min_bytes);
    rd.get("nccl.max_bytes", n.max_bytes);
    rd.get("nccl.step_factor", n.step_factor);
    rd.get("nccl.iters", n.iters);
    rd.get("nccl.gpus_per_rank", n.gpus_per_rank);
    rd.get("nccl.pairwise", n.pairwise);
    rd.get("nccl.all_nodes", n.all_nodes);
    rd.get("nccl.busbw_threshold_gbs", n.busbw_threshold_gbs);
    if (n.busbw_threshold_gbs <= 0) n.busbw_threshold_gbs = r.target.nccl_busbw_threshold_gbs;
    rd.get("nccl.build.path", n.build_path);
    rd.get("nccl.build.image", n.build_image);
    rd.get("nccl.build.dir", n.build_dir);
    rd.get("nccl.build.repo", n.build_repo);
    rd.get("nccl.build.ref", n.build_ref);
    rd.get("nccl.hpcx_path", n.hpcx_path);
    rd.get("nccl.mpi", n.mpi);
    rd.get("nccl.mounts", n.mounts);
    rd.get("nccl.env", n.env);
    rd.get("nccl.mem", n.mem);
    rd.get("nccl.time", n.time);
    rd.get("nccl.ssh_port", n.ssh_port);
    rd.get("nccl.sshd", n.sshd);
    rd.get("nccl.mpirun_args", n.mpirun_args);
    return v;
}

PrepareDataOptions prepare_data_options(const Recipe& r, const Stage& stage) {
    PrepareDataOptions p;
    const ordered_json empty = ordered_json::object();
    Reader rd{stage.options.is_object() ? stage.options : empty};
    rd.get("dataset", p.dataset);
    rd.get("data_dir", p.data_dir);
    p.data_dir = trim_slash(p.data_dir);
    rd.get("output_dir", p.output_dir);
    p.output_dir = trim_slash(p.output_dir);
    if (p.output_dir.empty() && !p.data_dir.empty())
        p.output_dir = p.dataset == "slimpajama" ? p.data_dir + "/preprocessed" : p.data_dir;
    rd.get("image", p.image);
    // Tokenization needs NeMo: by default the recipe's own container (Pyxis/enroot targets).
    std::string runtime = r.container.runtime.empty() ? r.target.container_runtime : r.container.runtime;
    if (p.image.empty() && p.dataset != "custom" && (runtime == "pyxis" || runtime == "enroot"))
        p.image = r.container.image;
    // NeMo's place in the image: /opt/bignlp/NeMo in the bignlp-training (22.06) images, else /opt/NeMo.
    p.nemo_dir = p.image.find("bignlp-training") != std::string::npos ? "/opt/bignlp/NeMo" : "/opt/NeMo";
    rd.get("nemo_dir", p.nemo_dir);
    rd.get("retries", p.retries);
    rd.get("retry_delay", p.retry_delay);
    rd.get("mounts", p.mounts);
    rd.get("env", p.env);
    rd.get("time", p.time);
    rd.get("partition", p.partition);
    rd.get("nodes", p.nodes);
    if (p.dataset == "slimpajama") p.tasks_per_node = 48;  // seed 002 TASKS_PER_NODE
    rd.get("tasks_per_node", p.tasks_per_node);
    rd.get("download", p.download);
    rd.get("extract", p.extract);
    rd.get("concat", p.concat);
    rd.get("preprocess", p.preprocess);
    rd.get("rm_downloaded", p.rm_downloaded);
    rd.get("rm_extracted", p.rm_extracted);
    rd.get("tokenizer_type", p.tokenizer_type);
    rd.get("vocab_file", p.vocab_file);
    rd.get("merge_file", p.merge_file);
    if (p.vocab_file.empty() && !p.data_dir.empty()) p.vocab_file = p.data_dir + "/bpe/vocab.json";
    if (p.merge_file.empty() && !p.data_dir.empty()) p.merge_file = p.data_dir + "/bpe/merges.txt";
    // The Pile's original mirror (the-eye.eu) is gone; the NeMo launcher now reads the
    // uncopyrighted copy on Hugging Face (same shard names 00..29.jsonl.zst).
    if (p.dataset == "pile") p.url = "https://huggingface.co/datasets/monology/pile-uncopyrighted/resolve/main/train/";
    if (p.dataset == "slimpajama")
        p.url = "https://huggingface.co/datasets/cerebras/SlimPajama-627B/resolve/main/train";
    p.vocab_url = "https://huggingface.co/gpt2/resolve/main/vocab.json";
    p.merges_url = "https://huggingface.co/gpt2/resolve/main/merges.txt";
    rd.get("url", p.url);
    rd.get("vocab_url", p.vocab_url);
    rd.get("merges_url", p.merges_url);
    rd.get("shards", p.shards);
    rd.get("chunks", p.chunks);
    rd.get("valid_test_chunks", p.valid_test_chunks);
    rd.get("download_chunks", p.download_chunks);
    rd.get("download_shards", p.download_shards);
    rd.get("launcher_version", p.launcher_version);
    rd.get("preprocess_mounts", p.preprocess_mounts);
    rd.get("gpus_per_node", p.gpus_per_node);
    rd.get("command", p.command);
    rd.get("array", p.array);
    if (const auto* v = find_path(rd.o, "prefixes"); v && v->is_array())
        for (const auto& e : *v)
            if (e.is_object() && e.contains("prefix") && e["prefix"].is_string())
                p.prefixes.push_back({e.contains("weight") && e["weight"].is_number() ? e["weight"].get<double>() : 1.0,
                                      e["prefix"].get<std::string>()});
    return p;
}

std::vector<int> parse_shards(const std::string& shards) {
    std::set<int> out;
    std::size_t start = 0;
    auto number = [&shards](const std::string& t) {
        if (t.empty() || t.size() > 4 || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
            throw InputError(fmt::format("shards '{}': '{}' is not a shard number", shards, t));
        return std::stoi(t);
    };
    while (start <= shards.size()) {
        std::size_t comma = shards.find(',', start);
        std::string part = shards.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::size_t dash = part.find('-');
        int a = number(dash == std::string::npos ? part : part.substr(0, dash));
        int b = dash == std::string::npos ? a : number(part.substr(dash + 1));
        if (b < a) throw InputError(fmt::format("shards '{}': range '{}' runs backwards", shards, part));
        for (int i = a; i <= b; ++i) out.insert(i);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (out.empty() || *out.rbegin() > 29)
        throw InputError(fmt::format("shards '{}': the Pile has shards 0 to 29", shards));
    return {out.begin(), out.end()};
}

std::vector<DataPrefix> prepared_prefixes(const Recipe& /*r*/, const PrepareDataOptions& p) {
    std::vector<DataPrefix> out;
    if (p.dataset == "pile") {
        std::vector<int> shards;
        try {
            shards = parse_shards(p.shards);
        } catch (const InputError&) {
            return out;
        }
        for (int s : shards)
            out.push_back({1.0 / static_cast<double>(shards.size()),
                           fmt::format("{}/my-gpt3_{:02d}_text_document", p.output_dir, s)});
    } else if (p.dataset == "slimpajama") {
        // Seed 002: every preprocessed chunk in `sort` order minus the last 2 x valid_test_chunks.
        std::vector<std::string> names;
        for (int i = 0; i < p.chunks; ++i) names.push_back(fmt::format("train_chunk_{}.jsonl_text_document", i));
        std::sort(names.begin(), names.end());
        std::size_t keep = names.size() - std::min(names.size(), static_cast<std::size_t>(2 * p.valid_test_chunks));
        for (std::size_t i = 0; i < keep; ++i) out.push_back({1.0, p.output_dir + "/" + names[i]});
    } else {
        out = p.prefixes;
    }
    return out;
}

Data effective_data(const Recipe& r) {
    Data d = r.data;
    if (d.kind != "prepared") return d;
    for (const Stage& s : r.stages) {
        if (s.kind != "prepare-data") continue;
        PrepareDataOptions p = prepare_data_options(r, s);
        d.kind = "prefixes";
        d.prefixes = prepared_prefixes(r, p);
        if (d.vocab_file.empty() && p.dataset != "custom") d.vocab_file = p.vocab_file;
        if (d.merge_file.empty() && p.dataset != "custom") d.merge_file = p.merge_file;
        if (d.tokenizer.empty()) d.tokenizer = "gpt2-bpe";
        break;
    }
    return d;
}

}  // namespace trainbench::recipe
