// trainbench tag RUN TAG: marks a recorded run (e.g. "good", the default baseline of regress).
#include "cli/results_support.hpp"

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

struct TagOptions {
    std::string run;
    std::string tag;
};

int run_tag(const TagOptions& o, Context& ctx) {
    if (std::string why = results::label_problem("tag", o.tag); !why.empty() || o.tag == "last-good")
        throw UsageError(fmt::format("invalid tag: {}", why.empty() ? "'last-good' names the baseline" : why),
                         "a tag is one word, not 'last-good'");
    std::unique_ptr<results::Store> store = open_results(ctx, results::Access::write);
    const results::Result r = store->find_run(o.run);
    store->tag(r.run_id, o.tag);
    if (ctx.options.json)
        print_json(ctx, nlohmann::ordered_json{{"run", r.run_id}, {"tag", o.tag}}.dump(2));
    else
        ctx.out << fmt::format("tagged run {} ({}) {}\n", terminal_safe(r.short_id()), terminal_safe(r.recipe_name),
                               o.tag);
    return 0;
}

}  // namespace

void setup_tag_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<TagOptions>();
    CLI::App* cmd = root.add_subcommand("tag", "Tag a recorded run (e.g. good: the baseline of 'regress')");
    cmd->add_option("RUN", opts->run, "Run id or short id prefix of a recorded result")->required();
    cmd->add_option("TAG", opts->tag, "The tag, e.g. good")->required();
    cmd->footer(R"TXT(Examples:
  trainbench tag 3fa2c1 good
  trainbench regress 9b0e44 --baseline last-good)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_tag(*opts, ctx); }; });
}

}  // namespace trainbench::cli
