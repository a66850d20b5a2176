// tinygpt: the shipped workload (workloads/tinygpt/train.py), the local targets' job: on the
// CPU, or on CUDA when the target's GPU is a real one (docs/workload.md "On GPUs").
#include "render/frameworks/framework.hpp"

namespace trainbench::render {

FrameworkLaunch tinygpt_launch(const Facts& f) {
    const recipe::Recipe& r = f.r;
    refuse_unsupported_model(r);
    const catalog::Model& m = r.model;
    Args a;
    auto opt = [&a](const std::string& flag, const std::string& value) {
        a.push_back({ShellWord(flag), ShellWord(value)});
    };
    opt("--layers", std::to_string(m.layers));
    opt("--hidden", std::to_string(m.hidden));
    opt("--heads", std::to_string(m.heads));
    opt("--ffn", std::to_string(m.ffn_size()));
    opt("--seq-len", std::to_string(m.seq_length));
    opt("--vocab", std::to_string(m.vocab_size()));
    opt("--micro-batch", std::to_string(r.batch.micro));
    opt("--global-batch", std::to_string(r.batch.global));
    opt("--steps", std::to_string(r.steps));
    opt("--lr", "0.003");
    opt("--seed", "1234");
    a.push_back({ShellWord("--dllogger-file"), run_path(f.dllogger_file)});
    if (f.requests_gpus) {
        // One GPU per rank, bf16 autocast, fused attention, the vocabulary padded as Megatron-LM
        // pads it (make-vocab-size-divisible-by 128: the megatron conventions' V_p).
        opt("--device", "cuda");
        opt("--precision", std::string(catalog::to_string(r.precision)));
        opt("--attention", "sdpa");
        opt("--pad-vocab-to", "128");
    }
    FrameworkLaunch out;
    out.program.push_back(word_with_var("", "TRAINBENCH_WORKLOADS", "/tinygpt/train.py"));
    append_args(out.program, a, r.launch.extra_args);
    return out;
}

}  // namespace trainbench::render
