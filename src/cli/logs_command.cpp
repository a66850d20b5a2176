// trainbench logs RUN [-f]: a run's log files (scheduler output, framework
// logs) from its run directory, fetched first when they live elsewhere.
#include "cli/run_support.hpp"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

namespace fs = std::filesystem;

namespace trainbench::cli {

namespace {

struct LogsOptions {
    std::string run;
    bool follow = false;
    std::string stage;
    bool list = false;
};

// Prints what was appended to each file since the last call.
class Printer {
public:
    explicit Printer(Context& ctx) : m_ctx(ctx) {}
    bool print(const std::vector<fs::path>& files, bool headers) {
        bool any = false;
        for (const fs::path& f : files) {
            std::ifstream in(f, std::ios::binary);
            if (!in) continue;
            in.seekg(0, std::ios::end);
            std::streamoff size = in.tellg();
            std::streamoff& offset = m_offsets[f];
            if (size < offset) offset = 0;  // truncated or re-fetched
            if (size == offset) continue;
            in.seekg(offset);
            std::string chunk(static_cast<std::size_t>(size - offset), '\0');
            in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
            if (headers && f != m_last) m_ctx.out << fmt::format("==> {} <==\n", f.string());
            m_last = f;
            m_ctx.out << chunk;
            if (!chunk.empty() && chunk.back() != '\n') m_ctx.out << '\n';
            offset = size;
            any = true;
        }
        m_ctx.out.flush();
        return any;
    }

private:
    Context& m_ctx;
    std::map<fs::path, std::streamoff> m_offsets;
    fs::path m_last;
};

int run_logs(const LogsOptions& opts, Context& ctx) {
    pipeline::RunLogs logs(ctx.services(), load_runs(ctx, {opts.run}).front(), opts.stage);
    std::vector<fs::path> files = logs.collect();
    if (opts.list) {
        for (const fs::path& f : files) ctx.out << f.string() << '\n';
        return 0;
    }
    Printer printer(ctx);
    const bool headers = true;
    printer.print(files, headers);
    if (!opts.follow) {
        if (files.empty())
            ctx.err << fmt::format("trainbench: run {} has no logs yet ({})\n", logs.run().short_id,
                                   logs.run().state());
        return 0;
    }
    auto last_refresh = std::chrono::steady_clock::now();
    while (true) {
        check_interrupted();
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        if (std::chrono::steady_clock::now() - last_refresh > std::chrono::seconds(2)) {
            logs.refresh();
            last_refresh = std::chrono::steady_clock::now();
            files = logs.collect();
            bool more = printer.print(files, headers);
            if (logs.run().is_final() && !more) break;
            continue;
        }
        files = logs.collect();
        printer.print(files, headers);
    }
    ctx.err << fmt::format("trainbench: run {} ended {}\n", logs.run().short_id, logs.run().state());
    return 0;
}

}  // namespace

void setup_logs_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<LogsOptions>();
    CLI::App* cmd = root.add_subcommand("logs", "Print a run's logs; -f follows them until the run ends");
    cmd->add_option("RUN", opts->run, "Run directory, run id or short id prefix")->required();
    cmd->add_flag("-f,--follow", opts->follow, "Keep printing what is appended until the run ends");
    cmd->add_option("--stage", opts->stage, "Only this stage's logs");
    cmd->add_flag("--list", opts->list, "Only list the log files");
    cmd->footer(R"TXT(Examples:
  trainbench logs 3fa2c1
  trainbench logs 3fa2c1 -f --stage train
  trainbench logs 3fa2c1 --list)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_logs(*opts, ctx); }; });
}

}  // namespace trainbench::cli
