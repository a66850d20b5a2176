// metaseq: metaseq/cli/train.py, one task per GPU (seed 003).
//
// The arguments follow what seed 003's `opt-baselines --benchmark` builds (metaseq f7ffa5f,
// launcher/{sweep,slurm}.py gen_train_command, then opt_baselines.py get_grid), in that order.
// Differences on purpose: every output (checkpoint directory, TensorBoard) is under the run
// directory, and no checkpoint is written (a benchmark measures training, not saving).
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
    const bool mock = r.data.kind == "mock";
    int dp = data_parallel_size(r, world_size);
    int update_freq = std::max(1, r.batch.global / std::max(1, r.batch.micro * dp));
    // gen_train_command: world size, rendezvous port, the data directory (a positional
    // argument of the streaming task), the save directory and TensorBoard (<save_dir>/tb).
    opt("--distributed-world-size", std::to_string(world_size));
    a.push_back({ShellWord("--distributed-port"), word_with_var("", "MASTER_PORT")});
    if (!mock && !r.data.prefixes.empty()) a.push_back(group(ShellWord(r.data.prefixes.front().prefix)));
    a.push_back({ShellWord("--save-dir"), run_path(f.log_dir + "/checkpoints")});
    a.push_back({ShellWord("--tensorboard-logdir"), run_path(f.log_dir + "/tb")});
    if (mock) {
        // --benchmark: the dummy_lm task (DummyLMConfig: dict_size, dataset_size,
        // tokens_per_sample, add_bos_token; no --sample-break-mode).
        opt("--task", "dummy_lm");
        opt("--dict-size", "51196");  // opt_baselines.py: 51200 - 4
    } else {
        // get_grid's default task config.
        opt("--task", "streaming_language_modeling");
        opt("--sample-break-mode", "none");
        if (!r.data.vocab_file.empty()) opt("--vocab-filename", r.data.vocab_file);
        if (!r.data.merge_file.empty()) opt("--merges-filename", r.data.merge_file);
    }
    // No checkpoints: no interval save (--benchmark's two zeros; an epoch of dummy_lm's 100000
    // samples can end inside a longer run) and no final checkpoint_last.pt. metaseq's
    // CheckpointConfig.save_last_checkpoint defaults to True, so gen_parser_from_dataclass makes
    // --save-last-checkpoint a store_false flag: passing it turns the final save off.
    // (fairseq's --no-save does not exist in metaseq.) A recipe that wants checkpoints sets
    // --save-interval-updates N in launch.extra_args.
    opt("--save-interval-epochs", "0");
    opt("--save-interval-updates", "0");
    a.push_back(group("--save-last-checkpoint"));
    // --memory-efficient-fp16 implies --fp16 (options.py parse_args_and_arch); the seed passes only it.
    if (r.precision == catalog::Precision::fp16)
        a.push_back(group("--memory-efficient-fp16"));
    else if (r.precision == catalog::Precision::bf16)
        a.push_back(group("--bf16"));
    if (r.distributed_optimizer) {
        // Fully sharded data parallel as opt_baselines.py runs it.
        opt("--ddp-backend", "fully_sharded");
        a.push_back(group("--no-reshard-after-forward"));
        a.push_back(group("--use-sharded-state"));
    }
    if (r.recompute.granularity != "none" && !r.recompute.granularity.empty())
        a.push_back(group("--checkpoint-activations"));
    opt("--model-parallel-size", std::to_string(r.parallelism.tensor));
    opt("--arch", "transformer_lm_megatron");
    a.push_back(group("--share-decoder-input-output-embed"));
    opt("--decoder-layers", std::to_string(m.layers));
    opt("--decoder-embed-dim", std::to_string(m.hidden));
    opt("--decoder-ffn-embed-dim", std::to_string(m.ffn_size()));
    opt("--decoder-attention-heads", std::to_string(m.heads));
    a.push_back(group("--decoder-learned-pos"));
    opt("--tokens-per-sample", std::to_string(m.seq_length));
    opt("--optimizer", "adam");
    opt("--adam-betas", "(0.9, 0.95)");
    opt("--adam-eps", "1e-08");
    opt("--clip-norm", "1.0");
    opt("--lr-scheduler", "polynomial_decay");
    opt("--lr", "0.0001");
    opt("--total-num-update", std::to_string(r.steps));
    opt("--batch-size", std::to_string(r.batch.micro));
    opt("--update-freq", std::to_string(update_freq));
    opt("--max-update", std::to_string(r.steps));
    opt("--log-format", "json");
    opt("--log-interval", "1");
    return a;
}

}  // namespace

FrameworkLaunch metaseq_launch(const Facts& f) {
    refuse_unsupported_model(f.r);
    FrameworkLaunch out;
    out.program.emplace_back(entry_point(f.r, "", "metaseq/cli/train.py"));
    append_args(out.program, metaseq_args(f), f.r.launch.extra_args);
    return out;
}

}  // namespace trainbench::render
