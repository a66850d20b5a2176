// metaseq: metaseq/cli/train.py, one task per GPU (seed 003).
#include "render/frameworks/framework.hpp"

#include <algorithm>

namespace trainbench::render {

namespace {

Args metaseq_args(const Facts& f) {
    const recipe::Recipe& r = f.r;
    const catalog::Model& m = r.model;
    const int world_size = f.world_size;
    Args a;
    auto opt = [&a](const std::string& flag, const std::string& value) {
        a.push_back({ShellWord(flag), ShellWord(value)});
    };
    int dp = data_parallel_size(r, world_size);
    int update_freq = std::max(1, r.batch.global / std::max(1, r.batch.micro * dp));
    opt("--distributed-world-size", std::to_string(world_size));
    a.push_back({ShellWord("--distributed-port"), word_with_var("", "MASTER_PORT")});
    if (r.data.kind == "mock") {
        opt("--task", "dummy_lm");
        opt("--dict-size", "51196");  // seed 003 (--benchmark)
    } else {
        opt("--task", "streaming_language_modeling");
        if (!r.data.prefixes.empty()) a.push_back({ShellWord("--data"), ShellWord(r.data.prefixes.front().prefix)});
        if (!r.data.vocab_file.empty()) opt("--vocab-filename", r.data.vocab_file);
        if (!r.data.merge_file.empty()) opt("--merges-filename", r.data.merge_file);
    }
    opt("--arch", "transformer_lm_megatron");
    opt("--decoder-layers", std::to_string(m.layers));
    opt("--decoder-embed-dim", std::to_string(m.hidden));
    opt("--decoder-ffn-embed-dim", std::to_string(m.ffn_size()));
    opt("--decoder-attention-heads", std::to_string(m.heads));
    a.push_back(group("--decoder-learned-pos"));
    a.push_back(group("--share-decoder-input-output-embed"));
    opt("--tokens-per-sample", std::to_string(m.seq_length));
    opt("--sample-break-mode", "none");
    opt("--model-parallel-size", std::to_string(r.parallelism.tensor));
    opt("--batch-size", std::to_string(r.batch.micro));
    opt("--update-freq", std::to_string(update_freq));
    opt("--max-update", std::to_string(r.steps));
    opt("--total-num-update", std::to_string(r.steps));
    opt("--optimizer", "adam");
    opt("--adam-betas", "(0.9, 0.95)");
    opt("--adam-eps", "1e-08");
    opt("--clip-norm", "1.0");
    opt("--lr", "0.0001");
    opt("--lr-scheduler", "polynomial_decay");
    opt("--ddp-backend", "fully_sharded");
    a.push_back(group("--no-reshard-after-forward"));
    a.push_back(group("--use-sharded-state"));
    if (r.recompute.granularity != "none" && !r.recompute.granularity.empty())
        a.push_back(group("--checkpoint-activations"));
    if (r.precision == catalog::Precision::bf16) {
        a.push_back(group("--bf16"));
    } else if (r.precision == catalog::Precision::fp16) {
        a.push_back(group("--fp16"));
        a.push_back(group("--memory-efficient-fp16"));
    }
    opt("--log-format", "json");
    opt("--log-interval", "1");
    a.push_back(group("--no-save"));
    a.push_back({ShellWord("--save-dir"), run_path(f.log_dir + "/checkpoints")});
    a.push_back({ShellWord("--tensorboard-logdir"), run_path(f.log_dir + "/tb")});
    return a;
}

}  // namespace

FrameworkLaunch metaseq_launch(const Facts& f) {
    FrameworkLaunch out;
    out.program.emplace_back(entry_point(f.r, "", "metaseq/cli/train.py"));
    append_args(out.program, metaseq_args(f), f.r.launch.extra_args);
    return out;
}

}  // namespace trainbench::render
