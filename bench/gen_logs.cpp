// Writes synthetic training logs of a given size for bench/parse_bench.sh:
//   gen_logs FORMAT SIZE_MB OUT
//   FORMAT: dllogger | tfevents | megatron | fairseq | megatron-bridge | torchtitan | mlperf
// The records look like what NeMo 1.x (dllogger.json, TensorBoard with
// Lightning's add_scalar), Megatron-LM, fairseq --log-format json, Megatron-Bridge
// (train_utils.training_log), TorchTitan (components/metrics.py, coloured) and
// MLPerf mllog (:::MLLOG lines, srun -l prefixed) write.
// Standalone on purpose (no project headers): its CRC-32C and protobuf
// encoding are independent of the parser's. Deterministic output.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::uint32_t crc_table[256];

void init_crc() {
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        crc_table[i] = c;
    }
}

std::uint32_t masked_crc(const std::string& s) {
    std::uint32_t c = 0xffffffffu;
    for (unsigned char b : s) c = (c >> 8) ^ crc_table[(c ^ b) & 0xffu];
    c = ~c;
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

void put_varint(std::string& s, std::uint64_t v) {
    while (v >= 0x80) {
        s.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    s.push_back(static_cast<char>(v));
}
void put_le(std::string& s, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::string scalar_event(const char* tag, std::int64_t step, float value, double wall) {
    std::string val;
    val.push_back(0x0a);
    put_varint(val, std::strlen(tag));
    val += tag;
    val.push_back(0x15);
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    put_le(val, bits, 4);
    std::string summary;
    summary.push_back(0x0a);
    put_varint(summary, val.size());
    summary += val;
    std::string ev;
    ev.push_back(0x09);
    std::uint64_t wbits;
    std::memcpy(&wbits, &wall, 8);
    put_le(ev, wbits, 8);
    if (step) {
        ev.push_back(0x10);
        put_varint(ev, static_cast<std::uint64_t>(step));
    }
    ev.push_back(0x2a);
    put_varint(ev, summary.size());
    ev += summary;
    std::string len;
    put_le(len, ev.size(), 8);
    std::string rec = len;
    put_le(rec, masked_crc(len), 4);
    rec += ev;
    put_le(rec, masked_crc(ev), 4);
    return rec;
}

// a cheap deterministic pseudo-random sequence
double noise(std::uint64_t i) {
    std::uint64_t x = i * 0x9e3779b97f4a7c15ull;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    return static_cast<double>(x % 10000) / 10000.0;
}

using Emit = void (*)(void*, const std::string&);

// Megatron-Bridge: the rank-0 "Step Time" line, then the last rank's iteration line.
void gen_megatron_bridge(std::uint64_t target, const std::uint64_t& written, void* ctx, Emit emit) {
    char line[2048];
    for (std::int64_t it = 1; written < target; ++it) {
        const double t = 5.39 + noise(static_cast<std::uint64_t>(it)) * 0.02;
        int n = std::snprintf(line, sizeof line, "Step Time : %.2fs GPU utilization: %.1fMODEL_TFLOP/s/GPU\n", t,
                              2347.0 - noise(static_cast<std::uint64_t>(it)) * 5);
        emit(ctx, std::string(line, static_cast<std::size_t>(n)));
        n = std::snprintf(
            line, sizeof line,
            " [2026-08-22 10:00:05] iteration %8lld/  500000 | consumed samples: %12lld | elapsed time per iteration "
            "(ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size:   256 | "
            "lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan "
            "iterations:   0 |\n",
            static_cast<long long>(it), static_cast<long long>(it * 256), t * 1000.0,
            2347.0 - noise(static_cast<std::uint64_t>(it)) * 5, 6e-6, 1.9 + noise(static_cast<std::uint64_t>(it) + 1),
            1.5 + noise(static_cast<std::uint64_t>(it) + 2));
        emit(ctx, std::string(line, static_cast<std::size_t>(n)));
    }
}

// TorchTitan: the coloured step line (Color in tools/utils.py), one per step, 1.5 s apart.
void gen_torchtitan(std::uint64_t target, const std::uint64_t& written, void* ctx, Emit emit) {
    char line[2048];
    for (std::int64_t step = 1; written < target; ++step) {
        const std::int64_t ms = step * 1500 + static_cast<std::int64_t>(noise(static_cast<std::uint64_t>(step)) * 9);
        const std::int64_t sec = ms / 1000;
        int n = std::snprintf(
            line, sizeof line,
            "[rank0]:[titan] 2026-08-%02lld %02lld:%02lld:%02lld,%03lld - root - INFO - \x1b[31mstep: %2lld  "
            "\x1b[32mloss: %8.5f  \x1b[38;2;180;60;0mgrad_norm: %7.4f  \x1b[38;2;54;234;195mmemory: "
            "%5.2fGiB(%.2f%%)  \x1b[34mtps: %lld,%03lld  \x1b[36mtflops: %.2f  \x1b[35mmfu: %.2f%%\x1b[39m\n",
            static_cast<long long>(1 + sec / 86400 % 28), static_cast<long long>(sec / 3600 % 24),
            static_cast<long long>(sec / 60 % 60), static_cast<long long>(sec % 60), static_cast<long long>(ms % 1000),
            static_cast<long long>(step), 2.0 + noise(static_cast<std::uint64_t>(step) + 1),
            0.5 + noise(static_cast<std::uint64_t>(step) + 2), 66.91, 37.51, 10LL,
            static_cast<long long>(noise(static_cast<std::uint64_t>(step) + 3) * 999), 314.7, 31.82);
        emit(ctx, std::string(line, static_cast<std::size_t>(n)));
    }
}

// MLPerf: srun -l prefixed :::MLLOG lines, a block of tracked_stats and eval per 12288 samples.
void gen_mlperf(std::uint64_t target, const std::uint64_t& written, void* ctx, Emit emit) {
    char line[2048];
    const long long t0 = 1759966206549LL;
    emit(ctx,
         "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 1759966206548, \"event_type\": \"POINT_IN_TIME\", "
         "\"key\": \"global_batch_size\", \"value\": 32, \"metadata\": {\"file\": \"callbacks.py\", "
         "\"lineno\": 341}}\n");
    emit(ctx,
         "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 1759966206549, \"event_type\": \"INTERVAL_START\", "
         "\"key\": \"run_start\", \"value\": null, \"metadata\": {\"file\": \"callbacks.py\", \"lineno\": 344}}\n");
    long long t = t0;
    for (std::int64_t block = 1; written < target; ++block) {
        const long long samples = block * 12288;
        const char* fmt =
            "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": %lld, \"event_type\": \"%s\", \"key\": \"%s\", "
            "\"value\": %s, \"metadata\": {\"file\": \"/workspace/code/src/callbacks.py\", \"lineno\": %d, "
            "\"%s\": %lld}}\n";
        // each block 400-406 s, its throughput what the block took (samples/s), as a report checks
        const long long block_ms = 400000 + (block % 7) * 1000;
        char value[64];
        std::snprintf(value, sizeof value, "{\"throughput\": %.15g}",
                      12288.0 / (static_cast<double>(block_ms) / 1000.0));
        int n = std::snprintf(line, sizeof line, fmt, t, "INTERVAL_START", "block_start", "null", 327, "samples_count",
                              samples - 12288);
        emit(ctx, std::string(line, static_cast<std::size_t>(n)));
        t += block_ms;
        n = std::snprintf(line, sizeof line, fmt, t, "POINT_IN_TIME", "tracked_stats", value, 350, "step", samples);
        emit(ctx, std::string(line, static_cast<std::size_t>(n)));
        n = std::snprintf(line, sizeof line, fmt, t, "INTERVAL_END", "block_stop", "null", 307, "samples_count",
                          samples);
        emit(ctx, std::string(line, static_cast<std::size_t>(n)));
        std::snprintf(value, sizeof value, "%.15g", 3.3 + noise(static_cast<std::uint64_t>(block) + 9));
        t += 10000;
        n = std::snprintf(line, sizeof line, fmt, t, "POINT_IN_TIME", "eval_accuracy", value, 128, "samples_count",
                          samples);
        emit(ctx, std::string(line, static_cast<std::size_t>(n)));
    }
    int n = std::snprintf(line, sizeof line,
                          "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": %lld, \"event_type\": \"INTERVAL_END\", "
                          "\"key\": \"run_stop\", \"value\": null, \"metadata\": {\"file\": \"callbacks.py\", "
                          "\"lineno\": 296, \"status\": \"success\"}}\n",
                          t + 1);
    emit(ctx, std::string(line, static_cast<std::size_t>(n)));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(
            stderr,
            "usage: gen_logs dllogger|tfevents|megatron|fairseq|megatron-bridge|torchtitan|mlperf SIZE_MB OUT\n");
        return 2;
    }
    std::string format = argv[1];
    const std::uint64_t target = std::strtoull(argv[2], nullptr, 10) << 20;
    FILE* f = std::fopen(argv[3], "wb");
    if (!f) {
        std::perror(argv[3]);
        return 1;
    }
    init_crc();
    std::uint64_t written = 0;
    char line[2048];
    const double t0 = 1727486493.241469;
    const int gbs = 2048;
    auto emit = [&](const std::string& s) {
        std::fwrite(s.data(), 1, s.size(), f);
        written += s.size();
    };
    if (format == "dllogger") {
        emit(
            "DLLL {\"timestamp\": \"1727486460.519\", \"datetime\": \"2024-09-28 01:21:00.519044\", \"elapsedtime\": "
            "\"0.000104\", \"type\": \"LOG\", \"step\": \"PARAMETER\", \"data\": {\"cfg/micro_batch_size\": 1, "
            "\"cfg/global_batch_size\": 2048, \"cfg/tensor_model_parallel_size\": 8, \"cfg/precision\": \"bf16\"}}\n");
        for (std::int64_t step = 0; written < target; ++step) {
            double t = 15.1 + noise(static_cast<std::uint64_t>(step)) * 0.2;
            double wall = t0 + static_cast<double>(step) * 15.2;
            int n = std::snprintf(
                line, sizeof line,
                "DLLL {\"timestamp\": \"%.6f\", \"datetime\": \"2024-09-28 01:21:33.241469\", \"elapsedtime\": "
                "\"%.6f\", \"type\": \"LOG\", \"step\": %lld, \"data\": {\"reduced_train_loss\": %.17g, \"lr\": "
                "%.17g, \"global_step\": %lld.0, \"consumed_samples\": %lld.0, \"train_backward_timing in s\": %.17g, "
                "\"grad_norm\": %.17g, \"train_step_timing in s\": %.17g, \"epoch\": 0}}\n",
                wall, wall - t0 + 32.9, static_cast<long long>(step),
                11.0 - 0.00001 * static_cast<double>(step) + noise(static_cast<std::uint64_t>(step) + 7),
                6e-5 * noise(static_cast<std::uint64_t>(step) + 3), static_cast<long long>(step),
                static_cast<long long>((step + 1) * gbs), t * 0.6, 1.0 + noise(static_cast<std::uint64_t>(step) + 11),
                t);
            emit(std::string(line, static_cast<std::size_t>(n)));
        }
    } else if (format == "tfevents") {
        std::string first;
        {
            std::string ev;
            ev.push_back(0x09);
            double w = t0;
            std::uint64_t wb;
            std::memcpy(&wb, &w, 8);
            put_le(ev, wb, 8);
            ev.push_back(0x1a);
            put_varint(ev, 13);
            ev += "brain.Event:2";
            std::string len;
            put_le(len, ev.size(), 8);
            first = len;
            put_le(first, masked_crc(len), 4);
            first += ev;
            put_le(first, masked_crc(ev), 4);
        }
        emit(first);
        static const char* tags[] = {"reduced_train_loss",
                                     "lr",
                                     "global_step",
                                     "consumed_samples",
                                     "train_backward_timing in s",
                                     "grad_norm",
                                     "train_step_timing in s",
                                     "epoch"};
        for (std::int64_t step = 0; written < target; ++step) {
            double wall = t0 + static_cast<double>(step) * 15.2;
            for (int k = 0; k < 8; ++k) {
                float v = static_cast<float>(noise(static_cast<std::uint64_t>(step * 8 + k)) + k);
                emit(scalar_event(tags[k], step, v, wall + k * 1e-3));
            }
        }
    } else if (format == "megatron") {
        for (std::int64_t it = 1; written < target; ++it) {
            int n = std::snprintf(
                line, sizeof line,
                " [2024-04-06 02:58:23] iteration %8lld/  500000 | consumed samples: %12lld | elapsed time per "
                "iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch "
                "size:  %4d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | "
                "number of nan iterations:   0 |\n",
                static_cast<long long>(it), static_cast<long long>(it * gbs),
                5571.1 + noise(static_cast<std::uint64_t>(it)) * 10, 234.4, 6e-6, gbs,
                1.9 + noise(static_cast<std::uint64_t>(it) + 1), 1.5 + noise(static_cast<std::uint64_t>(it) + 2));
            emit(std::string(line, static_cast<std::size_t>(n)));
        }
    } else if (format == "fairseq") {
        for (std::int64_t u = 1; written < target; ++u) {
            int n = std::snprintf(
                line, sizeof line,
                "2021-03-08 18:05:45 | INFO | train_inner | {\"epoch\": 1, \"update\": 0.002, \"loss\": \"%.3f\", "
                "\"ppl\": \"83644.3\", \"wps\": \"%.1f\", \"ups\": \"0.03\", \"wpb\": \"131072\", \"bsz\": \"64\", "
                "\"num_updates\": \"%lld\", \"lr\": \"4e-05\", \"gnorm\": \"18.411\", \"loss_scale\": \"4\", "
                "\"train_wall\": \"40\", \"gb_free\": \"9.3\", \"wall\": \"%lld\"}\n",
                16.0 - noise(static_cast<std::uint64_t>(u)), 3200 + 100 * noise(static_cast<std::uint64_t>(u) + 5),
                static_cast<long long>(u), static_cast<long long>(56 + 40 * u));
            emit(std::string(line, static_cast<std::size_t>(n)));
        }
    } else if (format == "megatron-bridge" || format == "torchtitan" || format == "mlperf") {
        Emit e = [](void* ctx, const std::string& s) { (*static_cast<decltype(emit)*>(ctx))(s); };
        auto gen = format == "megatron-bridge" ? gen_megatron_bridge
                   : format == "torchtitan"    ? gen_torchtitan
                                               : gen_mlperf;
        gen(target, written, &emit, e);
    } else {
        std::fprintf(stderr, "unknown format '%s'\n", format.c_str());
        return 2;
    }
    std::fclose(f);
    return 0;
}
